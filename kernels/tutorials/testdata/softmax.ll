target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define void @softmax(float addrspace(1)* %x, float addrspace(1)* %out, i32 %n_cols, i32 %stride) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%v1 = and i32 %v0, 31
	%v2 = lshr i32 %v0, 5
	%v3 = and i32 %v1, 31
	%v4 = and i32 %v2, 3
	%v5 = shl i32 %v4, 5
	%v6 = or i32 %v3, %v5
	br label %body

body:
	%v7 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v8 = add i32 %v6, 128
	%v9 = add i32 %v6, 256
	%v10 = add i32 %v6, 384
	%v11 = icmp slt i32 %v6, %n_cols
	%v12 = icmp slt i32 %v8, %n_cols
	%v13 = icmp slt i32 %v9, %n_cols
	%v14 = icmp slt i32 %v10, %n_cols
	%v15 = mul i32 %v7, %stride
	%v16 = sext i32 %v15 to i64
	%v17 = getelementptr inbounds float, float addrspace(1)* %x, i64 %v16
	%v18 = sext i32 %v6 to i64
	%v19 = getelementptr inbounds float, float addrspace(1)* %v17, i64 %v18
	%v20 = sext i32 %v8 to i64
	%v21 = getelementptr inbounds float, float addrspace(1)* %v17, i64 %v20
	%v22 = sext i32 %v9 to i64
	%v23 = getelementptr inbounds float, float addrspace(1)* %v17, i64 %v22
	%v24 = sext i32 %v10 to i64
	%v25 = getelementptr inbounds float, float addrspace(1)* %v17, i64 %v24
	%v26 = zext i1 %v11 to i32
	%v27 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v19, i32 %v26, float 0xC6293E5940000000)
	%v28 = zext i1 %v12 to i32
	%v29 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v21, i32 %v28, float 0xC6293E5940000000)
	%v30 = zext i1 %v13 to i32
	%v31 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v23, i32 %v30, float 0xC6293E5940000000)
	%v32 = zext i1 %v14 to i32
	%v33 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v25, i32 %v32, float 0xC6293E5940000000)
	%v34 = call float @llvm.maxnum.f32(float %v27, float %v29)
	%v35 = call float @llvm.maxnum.f32(float %v34, float %v31)
	%v36 = call float @llvm.maxnum.f32(float %v35, float %v33)
	%v37 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v36, i32 1, i32 31)
	%v38 = call float @llvm.maxnum.f32(float %v36, float %v37)
	%v39 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v38, i32 2, i32 31)
	%v40 = call float @llvm.maxnum.f32(float %v38, float %v39)
	%v41 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v40, i32 4, i32 31)
	%v42 = call float @llvm.maxnum.f32(float %v40, float %v41)
	%v43 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v42, i32 8, i32 31)
	%v44 = call float @llvm.maxnum.f32(float %v42, float %v43)
	%v45 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v44, i32 16, i32 31)
	%v46 = call float @llvm.maxnum.f32(float %v44, float %v45)
	%v47 = and i32 %v2, 1
	%v48 = lshr i32 %v2, 1
	%v49 = and i32 %v48, 1
	%v50 = shl i32 %v49, 1
	%v51 = or i32 %v47, %v50
	%v52 = mul i32 %v51, 4
	%v53 = zext i32 %v52 to i64
	%v54 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v53
	%v55 = bitcast i8 addrspace(3)* %v54 to float addrspace(3)*
	store float %v46, float addrspace(3)* %v55, align 4
	call void @llvm.nvvm.barrier0()
	%v56 = and i32 %v1, 3
	%v57 = mul i32 %v56, 4
	%v58 = zext i32 %v57 to i64
	%v59 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v58
	%v60 = bitcast i8 addrspace(3)* %v59 to float addrspace(3)*
	%v61 = load float, float addrspace(3)* %v60, align 4
	%v62 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v61, i32 1, i32 31)
	%v63 = call float @llvm.maxnum.f32(float %v61, float %v62)
	%v64 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v63, i32 2, i32 31)
	%v65 = call float @llvm.maxnum.f32(float %v63, float %v64)
	%v66 = fsub float %v27, %v65
	%v67 = fsub float %v29, %v65
	%v68 = fsub float %v31, %v65
	%v69 = fsub float %v33, %v65
	%v70 = fmul float %v66, 0x3FF7154760000000
	%v71 = call float @llvm.nvvm.ex2.approx.ftz.f(float %v70)
	%v72 = fmul float %v67, 0x3FF7154760000000
	%v73 = call float @llvm.nvvm.ex2.approx.ftz.f(float %v72)
	%v74 = fmul float %v68, 0x3FF7154760000000
	%v75 = call float @llvm.nvvm.ex2.approx.ftz.f(float %v74)
	%v76 = fmul float %v69, 0x3FF7154760000000
	%v77 = call float @llvm.nvvm.ex2.approx.ftz.f(float %v76)
	%v78 = sext i32 %v15 to i64
	%v79 = getelementptr inbounds float, float addrspace(1)* %out, i64 %v78
	%v80 = sext i32 %v6 to i64
	%v81 = getelementptr inbounds float, float addrspace(1)* %v79, i64 %v80
	%v82 = sext i32 %v8 to i64
	%v83 = getelementptr inbounds float, float addrspace(1)* %v79, i64 %v82
	%v84 = sext i32 %v9 to i64
	%v85 = getelementptr inbounds float, float addrspace(1)* %v79, i64 %v84
	%v86 = sext i32 %v10 to i64
	%v87 = getelementptr inbounds float, float addrspace(1)* %v79, i64 %v86
	%v88 = fadd float %v71, %v73
	%v89 = fadd float %v88, %v75
	%v90 = fadd float %v89, %v77
	%v91 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v90, i32 1, i32 31)
	%v92 = fadd float %v90, %v91
	%v93 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v92, i32 2, i32 31)
	%v94 = fadd float %v92, %v93
	%v95 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v94, i32 4, i32 31)
	%v96 = fadd float %v94, %v95
	%v97 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v96, i32 8, i32 31)
	%v98 = fadd float %v96, %v97
	%v99 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v98, i32 16, i32 31)
	%v100 = fadd float %v98, %v99
	%v101 = and i32 %v2, 1
	%v102 = lshr i32 %v2, 1
	%v103 = and i32 %v102, 1
	%v104 = shl i32 %v103, 1
	%v105 = or i32 %v101, %v104
	%v106 = mul i32 %v105, 4
	%v107 = add i32 128, %v106
	%v108 = zext i32 %v107 to i64
	%v109 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v108
	%v110 = bitcast i8 addrspace(3)* %v109 to float addrspace(3)*
	store float %v100, float addrspace(3)* %v110, align 4
	call void @llvm.nvvm.barrier0()
	%v111 = and i32 %v1, 3
	%v112 = mul i32 %v111, 4
	%v113 = add i32 128, %v112
	%v114 = zext i32 %v113 to i64
	%v115 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v114
	%v116 = bitcast i8 addrspace(3)* %v115 to float addrspace(3)*
	%v117 = load float, float addrspace(3)* %v116, align 4
	%v118 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v117, i32 1, i32 31)
	%v119 = fadd float %v117, %v118
	%v120 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v119, i32 2, i32 31)
	%v121 = fadd float %v119, %v120
	%v122 = call float asm "div.full.f32 $0, $1, $2;", "=f,f,f"(float 1.0, float %v121)
	%v123 = fmul float %v71, %v122
	%v124 = fmul float %v73, %v122
	%v125 = fmul float %v75, %v122
	%v126 = fmul float %v77, %v122
	%v127 = zext i1 %v11 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %v81, i32 %v127, float %v123)
	%v128 = zext i1 %v12 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %v83, i32 %v128, float %v124)
	%v129 = zext i1 %v13 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %v85, i32 %v129, float %v125)
	%v130 = zext i1 %v14 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %v87, i32 %v130, float %v126)
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare float @llvm.maxnum.f32(float %p0, float %p1)

declare float @llvm.nvvm.shfl.sync.bfly.f32(i32 %p0, float %p1, i32 %p2, i32 %p3)

declare void @llvm.nvvm.barrier0()

declare float @llvm.nvvm.ex2.approx.ftz.f(float %p0)

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*, float addrspace(1)*, i32, i32)* @softmax, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, i32, i32)* @softmax, !"maxntidx", i32 128}
