target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define void @pipe_scale(float addrspace(1)* %x, float addrspace(1)* %out, float %scale) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%v1 = and i32 %v0, 31
	%v2 = lshr i32 %v0, 5
	%v3 = ptrtoint [0 x i8] addrspace(3)* @global_smem to i32
	%v4 = icmp eq i32 %v0, 0
	br label %body

body:
	%v5 = zext i1 %v4 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09.reg .b64 %st;\0A\09.reg .b32 %z;\0A\09setp.ne.b32 %p, $1, 0;\0A\09mov.b32 %z, 0;\0A\09@%p mbarrier.init.shared::cta.b64 [$0], 1;\0A\09@%p mbarrier.init.shared::cta.b64 [$0+8], 1;\0A\09@%p mbarrier.init.shared::cta.b64 [$0+16], 1;\0A\09@%p mbarrier.init.shared::cta.b64 [$0+24], 1;\0A\09@%p fence.mbarrier_init.release.cluster;\0A}", "r,r,~{memory}"(i32 %v3, i32 %v5)
	call void @llvm.nvvm.barrier0()
	%v6 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v7 = mul i32 %v6, 8
	%v8 = icmp ult i32 %v2, 4
	br i1 %v8, label %bb2, label %bb3

bb1:
	call void @llvm.nvvm.barrier0()
	ret void

bb2:
	%v9 = icmp ult i32 %v2, 1
	br i1 %v9, label %bb4, label %bb1

bb3:
	%v10 = icmp ult i32 %v2, 8
	%v11 = icmp uge i32 %v2, 4
	%v12 = and i1 %v11, %v10
	br i1 %v12, label %bb11, label %bb12

bb4:
	%v13 = and i32 %v1, 31
	%v14 = shl i32 %v13, 2
	%v15 = icmp eq i32 %v0, 0
	br label %bb5

bb5:
	%v16 = add i32 %v14, 1
	%v17 = add i32 %v14, 2
	%v18 = add i32 %v14, 3
	%v19 = add i32 %v14, 128
	%v20 = add i32 %v14, 129
	%v21 = add i32 %v14, 130
	%v22 = add i32 %v14, 131
	br label %bb6

bb6:
	%v23 = phi i32 [ 0, %bb5 ], [ %v108, %bb10 ]
	%v24 = icmp slt i32 %v23, 8
	br i1 %v24, label %bb7, label %bb8

bb7:
	%v25 = and i32 %v23, 1
	%v26 = lshr i32 %v23, 1
	%v27 = and i32 %v26, 1
	%v28 = mul i32 %v25, 8
	%v29 = add i32 16, %v28
	%v30 = add i32 %v3, %v29
	%v31 = xor i32 %v27, 1
	br label %bb9

bb8:
	br label %bb1

bb9:
	%v32 = call i32 asm sideeffect "{\0A\09.reg .pred %p;\0A\09mbarrier.try_wait.parity.shared::cta.b64 %p, [$1], $2;\0A\09selp.u32 $0, 1, 0, %p;\0A}", "=r,r,r,~{memory}"(i32 %v30, i32 %v31)
	%v33 = icmp ne i32 %v32, 0
	br i1 %v33, label %bb10, label %bb9

bb10:
	%v34 = mul i32 %v25, 1024
	%v35 = add i32 128, %v34
	%v36 = mul i32 %v14, 4
	%v37 = add i32 %v35, %v36
	%v38 = zext i32 %v37 to i64
	%v39 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v38
	%v40 = bitcast i8 addrspace(3)* %v39 to float addrspace(3)*
	%v41 = mul i32 %v16, 4
	%v42 = add i32 %v35, %v41
	%v43 = zext i32 %v42 to i64
	%v44 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v43
	%v45 = bitcast i8 addrspace(3)* %v44 to float addrspace(3)*
	%v46 = mul i32 %v17, 4
	%v47 = add i32 %v35, %v46
	%v48 = zext i32 %v47 to i64
	%v49 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v48
	%v50 = bitcast i8 addrspace(3)* %v49 to float addrspace(3)*
	%v51 = mul i32 %v18, 4
	%v52 = add i32 %v35, %v51
	%v53 = zext i32 %v52 to i64
	%v54 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v53
	%v55 = bitcast i8 addrspace(3)* %v54 to float addrspace(3)*
	%v56 = mul i32 %v19, 4
	%v57 = add i32 %v35, %v56
	%v58 = zext i32 %v57 to i64
	%v59 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v58
	%v60 = bitcast i8 addrspace(3)* %v59 to float addrspace(3)*
	%v61 = mul i32 %v20, 4
	%v62 = add i32 %v35, %v61
	%v63 = zext i32 %v62 to i64
	%v64 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v63
	%v65 = bitcast i8 addrspace(3)* %v64 to float addrspace(3)*
	%v66 = mul i32 %v21, 4
	%v67 = add i32 %v35, %v66
	%v68 = zext i32 %v67 to i64
	%v69 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v68
	%v70 = bitcast i8 addrspace(3)* %v69 to float addrspace(3)*
	%v71 = mul i32 %v22, 4
	%v72 = add i32 %v35, %v71
	%v73 = zext i32 %v72 to i64
	%v74 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v73
	%v75 = bitcast i8 addrspace(3)* %v74 to float addrspace(3)*
	%v76 = add i32 %v7, %v23
	%v77 = mul i32 %v76, 256
	%v78 = sext i32 %v77 to i64
	%v79 = getelementptr inbounds float, float addrspace(1)* %x, i64 %v78
	%v80 = sext i32 %v14 to i64
	%v81 = getelementptr inbounds float, float addrspace(1)* %v79, i64 %v80
	%v82 = sext i32 %v19 to i64
	%v83 = getelementptr inbounds float, float addrspace(1)* %v79, i64 %v82
	%v84 = bitcast float addrspace(1)* %v81 to <4 x float> addrspace(1)*
	%v85 = load <4 x float>, <4 x float> addrspace(1)* %v84, align 16
	%v86 = extractelement <4 x float> %v85, i32 0
	%v87 = extractelement <4 x float> %v85, i32 1
	%v88 = extractelement <4 x float> %v85, i32 2
	%v89 = extractelement <4 x float> %v85, i32 3
	%v90 = bitcast float addrspace(1)* %v83 to <4 x float> addrspace(1)*
	%v91 = load <4 x float>, <4 x float> addrspace(1)* %v90, align 16
	%v92 = extractelement <4 x float> %v91, i32 0
	%v93 = extractelement <4 x float> %v91, i32 1
	%v94 = extractelement <4 x float> %v91, i32 2
	%v95 = extractelement <4 x float> %v91, i32 3
	call void asm sideeffect "bar.sync 1, 32;", "~{memory}"() #0
	%v96 = bitcast float addrspace(3)* %v40 to float addrspace(3)*
	store float %v86, float addrspace(3)* %v96, align 4
	%v97 = bitcast float addrspace(3)* %v45 to float addrspace(3)*
	store float %v87, float addrspace(3)* %v97, align 4
	%v98 = bitcast float addrspace(3)* %v50 to float addrspace(3)*
	store float %v88, float addrspace(3)* %v98, align 4
	%v99 = bitcast float addrspace(3)* %v55 to float addrspace(3)*
	store float %v89, float addrspace(3)* %v99, align 4
	%v100 = bitcast float addrspace(3)* %v60 to float addrspace(3)*
	store float %v92, float addrspace(3)* %v100, align 4
	%v101 = bitcast float addrspace(3)* %v65 to float addrspace(3)*
	store float %v93, float addrspace(3)* %v101, align 4
	%v102 = bitcast float addrspace(3)* %v70 to float addrspace(3)*
	store float %v94, float addrspace(3)* %v102, align 4
	%v103 = bitcast float addrspace(3)* %v75 to float addrspace(3)*
	store float %v95, float addrspace(3)* %v103, align 4
	%v104 = and i32 %v23, 1
	%v105 = mul i32 %v104, 8
	%v106 = add i32 %v3, %v105
	call void asm sideeffect "bar.sync 1, 32;", "~{memory}"() #0
	%v107 = zext i1 %v15 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09.reg .b64 %st;\0A\09.reg .b32 %z;\0A\09setp.ne.b32 %p, $1, 0;\0A\09mov.b32 %z, 0;\0A\09@%p mbarrier.arrive.shared::cta.b64 %st, [$0];\0A}", "r,r,~{memory}"(i32 %v106, i32 %v107)
	%v108 = add i32 %v23, 1
	br label %bb6

bb11:
	%v109 = sub i32 %v0, 128
	%v110 = sub i32 %v2, 4
	%v111 = and i32 %v1, 31
	%v112 = shl i32 %v111, 1
	%v113 = and i32 %v110, 3
	%v114 = shl i32 %v113, 6
	%v115 = or i32 %v112, %v114
	%v116 = icmp eq i32 %v109, 0
	br label %bb13

bb12:
	br label %bb1

bb13:
	%v117 = add i32 %v115, 1
	br label %bb14

bb14:
	%v118 = phi i32 [ 0, %bb13 ], [ %v159, %bb18 ]
	%v119 = icmp slt i32 %v118, 8
	br i1 %v119, label %bb15, label %bb16

bb15:
	%v120 = and i32 %v118, 1
	%v121 = lshr i32 %v118, 1
	%v122 = and i32 %v121, 1
	%v123 = mul i32 %v120, 8
	%v124 = add i32 %v3, %v123
	br label %bb17

bb16:
	br label %bb1

bb17:
	%v125 = call i32 asm sideeffect "{\0A\09.reg .pred %p;\0A\09mbarrier.try_wait.parity.shared::cta.b64 %p, [$1], $2;\0A\09selp.u32 $0, 1, 0, %p;\0A}", "=r,r,r,~{memory}"(i32 %v124, i32 %v122)
	%v126 = icmp ne i32 %v125, 0
	br i1 %v126, label %bb18, label %bb17

bb18:
	%v127 = mul i32 %v120, 1024
	%v128 = add i32 128, %v127
	%v129 = mul i32 %v115, 4
	%v130 = add i32 %v128, %v129
	%v131 = zext i32 %v130 to i64
	%v132 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v131
	%v133 = bitcast i8 addrspace(3)* %v132 to float addrspace(3)*
	%v134 = mul i32 %v117, 4
	%v135 = add i32 %v128, %v134
	%v136 = zext i32 %v135 to i64
	%v137 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v136
	%v138 = bitcast i8 addrspace(3)* %v137 to float addrspace(3)*
	call void asm sideeffect "bar.sync 2, 128;", "~{memory}"() #0
	%v139 = bitcast float addrspace(3)* %v133 to float addrspace(3)*
	%v140 = load float, float addrspace(3)* %v139, align 4
	%v141 = bitcast float addrspace(3)* %v138 to float addrspace(3)*
	%v142 = load float, float addrspace(3)* %v141, align 4
	%v143 = and i32 %v118, 1
	%v144 = mul i32 %v143, 8
	%v145 = add i32 16, %v144
	%v146 = add i32 %v3, %v145
	call void asm sideeffect "bar.sync 2, 128;", "~{memory}"() #0
	%v147 = zext i1 %v116 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09.reg .b64 %st;\0A\09.reg .b32 %z;\0A\09setp.ne.b32 %p, $1, 0;\0A\09mov.b32 %z, 0;\0A\09@%p mbarrier.arrive.shared::cta.b64 %st, [$0];\0A}", "r,r,~{memory}"(i32 %v146, i32 %v147)
	%v148 = add i32 %v7, %v118
	%v149 = mul i32 %v148, 256
	%v150 = sext i32 %v149 to i64
	%v151 = getelementptr inbounds float, float addrspace(1)* %out, i64 %v150
	%v152 = sext i32 %v115 to i64
	%v153 = getelementptr inbounds float, float addrspace(1)* %v151, i64 %v152
	%v154 = fmul float %v140, %scale
	%v155 = fmul float %v142, %scale
	%v156 = insertelement <2 x float> undef, float %v154, i32 0
	%v157 = insertelement <2 x float> %v156, float %v155, i32 1
	%v158 = bitcast float addrspace(1)* %v153 to <2 x float> addrspace(1)*
	store <2 x float> %v157, <2 x float> addrspace(1)* %v158, align 8
	%v159 = add i32 %v118, 1
	br label %bb14
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare void @llvm.nvvm.barrier0()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

attributes #0 = { convergent }

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*, float addrspace(1)*, float)* @pipe_scale, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, float)* @pipe_scale, !"maxntidx", i32 256}
