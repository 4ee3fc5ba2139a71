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
	%v10 = mul i32 %v7, 4
	%v11 = zext i32 %v10 to i64
	%v12 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v11
	%v13 = icmp eq i32 %v0, 0
	br label %body

body:
	%v14 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v15 = add i32 %v7, 1
	%v16 = mul i32 %v14, 256
	%v17 = sext i32 %v16 to i64
	%v18 = getelementptr inbounds i8, i8 addrspace(1)* %mask, i64 %v17
	%v19 = sext i32 %v7 to i64
	%v20 = getelementptr inbounds i8, i8 addrspace(1)* %v18, i64 %v19
	%v21 = bitcast i8 addrspace(1)* %v20 to <2 x i8> addrspace(1)*
	%v22 = load <2 x i8>, <2 x i8> addrspace(1)* %v21, align 2
	%v23 = extractelement <2 x i8> %v22, i32 0
	%v24 = zext i8 %v23 to i16
	%v25 = extractelement <2 x i8> %v22, i32 1
	%v26 = zext i8 %v25 to i16
	%v27 = trunc i16 %v24 to i8
	%v28 = trunc i16 %v26 to i8
	%v29 = icmp ne i8 %v27, 0
	%v30 = icmp ne i8 %v28, 0
	%v31 = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %v29) #0
	%v32 = and i32 %v31, %v8
	%v33 = call i32 @llvm.ctpop.i32(i32 %v32)
	%v34 = call i32 @llvm.ctpop.i32(i32 %v31)
	%v35 = zext i1 %v29 to i32
	%v36 = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %v30) #0
	%v37 = and i32 %v36, %v8
	%v38 = call i32 @llvm.ctpop.i32(i32 %v37)
	%v39 = add i32 %v33, %v38
	%v40 = call i32 @llvm.ctpop.i32(i32 %v36)
	%v41 = add i32 %v34, %v40
	%v42 = mul i32 %v9, 4
	%v43 = add i32 1024, %v42
	%v44 = zext i32 %v43 to i64
	%v45 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v44
	%v46 = bitcast i8 addrspace(3)* %v45 to i32 addrspace(3)*
	store i32 %v41, i32 addrspace(3)* %v46, align 4
	call void @llvm.nvvm.barrier0()
	%v47 = zext i32 1024 to i64
	%v48 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v47
	%v49 = bitcast i8 addrspace(3)* %v48 to <4 x i32> addrspace(3)*
	%v50 = load <4 x i32>, <4 x i32> addrspace(3)* %v49, align 16
	%v51 = extractelement <4 x i32> %v50, i32 0
	%v52 = extractelement <4 x i32> %v50, i32 1
	%v53 = extractelement <4 x i32> %v50, i32 2
	%v54 = add i32 %v51, %v52
	%v55 = add i32 %v54, %v53
	%v56 = icmp eq i32 %v9, 1
	%v57 = select i1 %v56, i32 %v51, i32 0
	%v58 = icmp eq i32 %v9, 2
	%v59 = select i1 %v58, i32 %v54, i32 %v57
	%v60 = icmp eq i32 %v9, 3
	%v61 = select i1 %v60, i32 %v55, i32 %v59
	%v62 = add i32 %v39, %v61
	%v63 = add i32 %v35, %v39
	%v64 = add i32 %v63, %v61
	%v65 = mul i32 %v62, 4
	%v66 = zext i32 %v65 to i64
	%v67 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v66
	%v68 = bitcast i8 addrspace(3)* %v67 to i32 addrspace(3)*
	%v69 = mul i32 %v64, 4
	%v70 = zext i32 %v69 to i64
	%v71 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v70
	%v72 = bitcast i8 addrspace(3)* %v71 to i32 addrspace(3)*
	%v73 = zext i1 %v29 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.shared.b32 [$0], $2;\0A}", "l,r,r"(i32 addrspace(3)* %v68, i32 %v73, i32 %v7)
	%v74 = zext i1 %v30 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.shared.b32 [$0], $2;\0A}", "l,r,r"(i32 addrspace(3)* %v72, i32 %v74, i32 %v15)
	%v75 = zext i1 %v29 to i32
	%v76 = zext i1 %v30 to i32
	%v77 = add i32 %v75, %v76
	%v78 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v77, i32 1, i32 31)
	%v79 = add i32 %v77, %v78
	%v80 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v79, i32 2, i32 31)
	%v81 = add i32 %v79, %v80
	%v82 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v81, i32 4, i32 31)
	%v83 = add i32 %v81, %v82
	%v84 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v83, i32 8, i32 31)
	%v85 = add i32 %v83, %v84
	%v86 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v85, i32 16, i32 31)
	%v87 = add i32 %v85, %v86
	%v88 = and i32 %v2, 1
	%v89 = lshr i32 %v2, 1
	%v90 = and i32 %v89, 1
	%v91 = shl i32 %v90, 1
	%v92 = or i32 %v88, %v91
	%v93 = mul i32 %v92, 4
	%v94 = add i32 1152, %v93
	%v95 = zext i32 %v94 to i64
	%v96 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v95
	%v97 = bitcast i8 addrspace(3)* %v96 to i32 addrspace(3)*
	store i32 %v87, i32 addrspace(3)* %v97, align 4
	call void @llvm.nvvm.barrier0()
	%v98 = and i32 %v1, 3
	%v99 = mul i32 %v98, 4
	%v100 = add i32 1152, %v99
	%v101 = zext i32 %v100 to i64
	%v102 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v101
	%v103 = bitcast i8 addrspace(3)* %v102 to i32 addrspace(3)*
	%v104 = load i32, i32 addrspace(3)* %v103, align 4
	%v105 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v104, i32 1, i32 31)
	%v106 = add i32 %v104, %v105
	%v107 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v106, i32 2, i32 31)
	%v108 = add i32 %v106, %v107
	%v109 = sext i32 %v16 to i64
	%v110 = getelementptr inbounds i32, i32 addrspace(1)* %list, i64 %v109
	%v111 = sext i32 %v7 to i64
	%v112 = getelementptr inbounds i32, i32 addrspace(1)* %v110, i64 %v111
	%v113 = sext i32 %v15 to i64
	%v114 = getelementptr inbounds i32, i32 addrspace(1)* %v110, i64 %v113
	%v115 = bitcast i8 addrspace(3)* %v12 to <2 x i32> addrspace(3)*
	%v116 = load <2 x i32>, <2 x i32> addrspace(3)* %v115, align 8
	%v117 = extractelement <2 x i32> %v116, i32 0
	%v118 = extractelement <2 x i32> %v116, i32 1
	%v119 = icmp slt i32 %v7, %v108
	%v120 = icmp slt i32 %v15, %v108
	%v121 = and i1 %v119, %v120
	%v122 = zext i1 %v121 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.v2.b32 [$0], {$2, $3};\0A}", "l,r,r,r"(i32 addrspace(1)* %v112, i32 %v122, i32 %v117, i32 %v118)
	%v123 = xor i1 %v121, true
	%v124 = and i1 %v119, %v123
	%v125 = zext i1 %v124 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b32 [$0], $2;\0A}", "l,r,r"(i32 addrspace(1)* %v112, i32 %v125, i32 %v117)
	%v126 = and i1 %v120, %v123
	%v127 = zext i1 %v126 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b32 [$0], $2;\0A}", "l,r,r"(i32 addrspace(1)* %v114, i32 %v127, i32 %v118)
	%v128 = sext i32 %v14 to i64
	%v129 = getelementptr inbounds i32, i32 addrspace(1)* %count, i64 %v128
	%v130 = zext i1 %v13 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b32 [$0], $2;\0A}", "l,r,r"(i32 addrspace(1)* %v129, i32 %v130, i32 %v108)
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
