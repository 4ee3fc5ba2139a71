target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define void @compact(i8 addrspace(1)* %mask, i32 addrspace(1)* %list, i32 addrspace(1)* %count) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%v1 = and i32 %v0, 31
	%v2 = lshr i32 %v0, 5
	%v3 = and i32 %v1, 31
	%v4 = shl i32 %v3, 1
	%v5 = and i32 %v2, 3
	%v6 = shl i32 %v5, 6
	%v7 = or i32 %v4, %v6
	%v8 = call i32 asm "mov.u32 $0, %lanemask_lt;", "=r"()
	%v9 = lshr i32 %v7, 6
	%v10 = and i32 %v1, 31
	%v11 = and i32 %v2, 3
	%v12 = shl i32 %v11, 5
	%v13 = or i32 %v10, %v12
	%v14 = mul i32 %v13, 4
	%v15 = zext i32 %v14 to i64
	%v16 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v15
	%v17 = add i32 %v13, 128
	%v18 = mul i32 %v17, 4
	%v19 = zext i32 %v18 to i64
	%v20 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v19
	%v21 = mul i32 %v13, 4
	%v22 = zext i32 %v21 to i64
	%v23 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v22
	%v24 = mul i32 %v7, 4
	%v25 = zext i32 %v24 to i64
	%v26 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v25
	%v27 = icmp eq i32 %v0, 0
	br label %body

body:
	%v28 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v29 = add i32 %v7, 1
	%v30 = mul i32 %v28, 256
	%v31 = sext i32 %v30 to i64
	%v32 = getelementptr inbounds i8, i8 addrspace(1)* %mask, i64 %v31
	%v33 = sext i32 %v7 to i64
	%v34 = getelementptr inbounds i8, i8 addrspace(1)* %v32, i64 %v33
	%v35 = bitcast i8 addrspace(1)* %v34 to <2 x i8> addrspace(1)*
	%v36 = load <2 x i8>, <2 x i8> addrspace(1)* %v35, align 2
	%v37 = extractelement <2 x i8> %v36, i32 0
	%v38 = zext i8 %v37 to i16
	%v39 = extractelement <2 x i8> %v36, i32 1
	%v40 = zext i8 %v39 to i16
	%v41 = trunc i16 %v38 to i8
	%v42 = trunc i16 %v40 to i8
	%v43 = icmp ne i8 %v41, 0
	%v44 = icmp ne i8 %v42, 0
	%v45 = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %v43) #0
	%v46 = and i32 %v45, %v8
	%v47 = call i32 @llvm.ctpop.i32(i32 %v46)
	%v48 = call i32 @llvm.ctpop.i32(i32 %v45)
	%v49 = zext i1 %v43 to i32
	%v50 = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %v44) #0
	%v51 = and i32 %v50, %v8
	%v52 = call i32 @llvm.ctpop.i32(i32 %v51)
	%v53 = add i32 %v47, %v52
	%v54 = call i32 @llvm.ctpop.i32(i32 %v50)
	%v55 = add i32 %v48, %v54
	%v56 = mul i32 %v9, 4
	%v57 = add i32 1024, %v56
	%v58 = zext i32 %v57 to i64
	%v59 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v58
	%v60 = bitcast i8 addrspace(3)* %v59 to i32 addrspace(3)*
	store i32 %v55, i32 addrspace(3)* %v60, align 4
	call void @llvm.nvvm.barrier0()
	%v61 = zext i32 1024 to i64
	%v62 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v61
	%v63 = bitcast i8 addrspace(3)* %v62 to <4 x i32> addrspace(3)*
	%v64 = load <4 x i32>, <4 x i32> addrspace(3)* %v63, align 16
	%v65 = extractelement <4 x i32> %v64, i32 0
	%v66 = extractelement <4 x i32> %v64, i32 1
	%v67 = extractelement <4 x i32> %v64, i32 2
	%v68 = add i32 %v65, %v66
	%v69 = add i32 %v68, %v67
	%v70 = icmp eq i32 %v9, 1
	%v71 = select i1 %v70, i32 %v65, i32 0
	%v72 = icmp eq i32 %v9, 2
	%v73 = select i1 %v72, i32 %v68, i32 %v71
	%v74 = icmp eq i32 %v9, 3
	%v75 = select i1 %v74, i32 %v69, i32 %v73
	%v76 = add i32 %v53, %v75
	%v77 = add i32 %v49, %v53
	%v78 = add i32 %v77, %v75
	%v79 = mul i32 %v76, 4
	%v80 = zext i32 %v79 to i64
	%v81 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v80
	%v82 = bitcast i8 addrspace(3)* %v81 to i32 addrspace(3)*
	%v83 = mul i32 %v78, 4
	%v84 = zext i32 %v83 to i64
	%v85 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v84
	%v86 = bitcast i8 addrspace(3)* %v85 to i32 addrspace(3)*
	call void @llvm.nvvm.barrier0()
	%v87 = zext i1 %v43 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.shared.b32 [$0], $2;\0A}", "l,r,r"(i32 addrspace(3)* %v82, i32 %v87, i32 %v7)
	%v88 = zext i1 %v44 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.shared.b32 [$0], $2;\0A}", "l,r,r"(i32 addrspace(3)* %v86, i32 %v88, i32 %v29)
	%v89 = zext i1 %v43 to i32
	%v90 = zext i1 %v44 to i32
	%v91 = add i32 %v89, %v90
	%v92 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v91, i32 1, i32 31)
	%v93 = add i32 %v91, %v92
	%v94 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v93, i32 2, i32 31)
	%v95 = add i32 %v93, %v94
	%v96 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v95, i32 4, i32 31)
	%v97 = add i32 %v95, %v96
	%v98 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v97, i32 8, i32 31)
	%v99 = add i32 %v97, %v98
	%v100 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v99, i32 16, i32 31)
	%v101 = add i32 %v99, %v100
	%v102 = and i32 %v2, 1
	%v103 = lshr i32 %v2, 1
	%v104 = and i32 %v103, 1
	%v105 = shl i32 %v104, 1
	%v106 = or i32 %v102, %v105
	%v107 = mul i32 %v106, 4
	%v108 = add i32 1152, %v107
	%v109 = zext i32 %v108 to i64
	%v110 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v109
	%v111 = bitcast i8 addrspace(3)* %v110 to i32 addrspace(3)*
	store i32 %v101, i32 addrspace(3)* %v111, align 4
	call void @llvm.nvvm.barrier0()
	%v112 = and i32 %v1, 3
	%v113 = mul i32 %v112, 4
	%v114 = add i32 1152, %v113
	%v115 = zext i32 %v114 to i64
	%v116 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v115
	%v117 = bitcast i8 addrspace(3)* %v116 to i32 addrspace(3)*
	%v118 = load i32, i32 addrspace(3)* %v117, align 4
	%v119 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v118, i32 1, i32 31)
	%v120 = add i32 %v118, %v119
	%v121 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v120, i32 2, i32 31)
	%v122 = add i32 %v120, %v121
	%v123 = sext i32 %v30 to i64
	%v124 = getelementptr inbounds i32, i32 addrspace(1)* %list, i64 %v123
	%v125 = sext i32 %v7 to i64
	%v126 = getelementptr inbounds i32, i32 addrspace(1)* %v124, i64 %v125
	%v127 = sext i32 %v29 to i64
	%v128 = getelementptr inbounds i32, i32 addrspace(1)* %v124, i64 %v127
	%v129 = bitcast i8 addrspace(3)* %v16 to i32 addrspace(3)*
	%v130 = load i32, i32 addrspace(3)* %v129, align 4
	%v131 = bitcast i8 addrspace(3)* %v20 to i32 addrspace(3)*
	%v132 = load i32, i32 addrspace(3)* %v131, align 4
	call void @llvm.nvvm.barrier0()
	%v133 = bitcast i8 addrspace(3)* %v23 to i32 addrspace(3)*
	store i32 %v130, i32 addrspace(3)* %v133, align 4
	%v134 = getelementptr inbounds i8, i8 addrspace(3)* %v23, i32 512
	%v135 = bitcast i8 addrspace(3)* %v134 to i32 addrspace(3)*
	store i32 %v132, i32 addrspace(3)* %v135, align 4
	call void @llvm.nvvm.barrier0()
	%v136 = bitcast i8 addrspace(3)* %v26 to <2 x i32> addrspace(3)*
	%v137 = load <2 x i32>, <2 x i32> addrspace(3)* %v136, align 8
	%v138 = extractelement <2 x i32> %v137, i32 0
	%v139 = extractelement <2 x i32> %v137, i32 1
	%v140 = icmp slt i32 %v7, %v122
	%v141 = icmp slt i32 %v29, %v122
	%v142 = and i1 %v140, %v141
	%v143 = zext i1 %v142 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.v2.b32 [$0], {$2, $3};\0A}", "l,r,r,r"(i32 addrspace(1)* %v126, i32 %v143, i32 %v138, i32 %v139)
	%v144 = xor i1 %v142, true
	%v145 = and i1 %v140, %v144
	%v146 = zext i1 %v145 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b32 [$0], $2;\0A}", "l,r,r"(i32 addrspace(1)* %v126, i32 %v146, i32 %v138)
	%v147 = and i1 %v141, %v144
	%v148 = zext i1 %v147 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b32 [$0], $2;\0A}", "l,r,r"(i32 addrspace(1)* %v128, i32 %v148, i32 %v139)
	%v149 = sext i32 %v28 to i64
	%v150 = getelementptr inbounds i32, i32 addrspace(1)* %count, i64 %v149
	%v151 = zext i1 %v27 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b32 [$0], $2;\0A}", "l,r,r"(i32 addrspace(1)* %v150, i32 %v151, i32 %v122)
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare i32 @llvm.nvvm.vote.ballot.sync(i32 %p0, i1 %p1)

declare i32 @llvm.ctpop.i32(i32 %p0)

declare void @llvm.nvvm.barrier0()

declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 %p0, i32 %p1, i32 %p2, i32 %p3)

attributes #0 = { convergent }

!nvvm.annotations = !{!0, !1}

!0 = !{void (i8 addrspace(1)*, i32 addrspace(1)*, i32 addrspace(1)*)* @compact, !"kernel", i32 1}
!1 = !{void (i8 addrspace(1)*, i32 addrspace(1)*, i32 addrspace(1)*)* @compact, !"maxntidx", i32 128}
