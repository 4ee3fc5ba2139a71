target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define void @softmax(float addrspace(1)* %out, float addrspace(1)* %in, i32 %in_stride, i32 %out_stride, i32 %n_cols) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%v1 = and i32 %v0, 31
	%v2 = lshr i32 %v0, 5
	%v3 = and i32 %v1, 31
	%v4 = shl i32 %v3, 2
	%v5 = and i32 %v2, 3
	%v6 = shl i32 %v5, 7
	%v7 = or i32 %v4, %v6
	br label %body

body:
	%v8 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v9 = mul i32 %v8, %in_stride
	%v10 = sext i32 %v9 to i64
	%v11 = getelementptr inbounds float, float addrspace(1)* %in, i64 %v10
	%v12 = icmp slt i32 %v7, %n_cols
	%v13 = sext i32 %v7 to i64
	%v14 = getelementptr inbounds float, float addrspace(1)* %v11, i64 %v13
	%v15 = zext i1 %v12 to i32
	%v16 = call { float, float, float, float } asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $5, 0;\0A\09mov.f32 $0, $6;\0A\09mov.f32 $1, $7;\0A\09mov.f32 $2, $8;\0A\09mov.f32 $3, $9;\0A\09@%p ld.global.v4.f32 {$0, $1, $2, $3}, [$4];\0A}", "=f,=f,=f,=f,l,r,f,f,f,f"(float addrspace(1)* %v14, i32 %v15, float 0xFFF0000000000000, float 0xFFF0000000000000, float 0xFFF0000000000000, float 0xFFF0000000000000)
	%v17 = extractvalue { float, float, float, float } %v16, 0
	%v18 = extractvalue { float, float, float, float } %v16, 1
	%v19 = extractvalue { float, float, float, float } %v16, 2
	%v20 = extractvalue { float, float, float, float } %v16, 3
	%v21 = call float @llvm.maxnum.f32(float %v17, float %v18)
	%v22 = call float @llvm.maxnum.f32(float %v21, float %v19)
	%v23 = call float @llvm.maxnum.f32(float %v22, float %v20)
	%v24 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v23, i32 1, i32 31)
	%v25 = call float @llvm.maxnum.f32(float %v23, float %v24)
	%v26 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v25, i32 2, i32 31)
	%v27 = call float @llvm.maxnum.f32(float %v25, float %v26)
	%v28 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v27, i32 4, i32 31)
	%v29 = call float @llvm.maxnum.f32(float %v27, float %v28)
	%v30 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v29, i32 8, i32 31)
	%v31 = call float @llvm.maxnum.f32(float %v29, float %v30)
	%v32 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v31, i32 16, i32 31)
	%v33 = call float @llvm.maxnum.f32(float %v31, float %v32)
	%v34 = and i32 %v2, 1
	%v35 = lshr i32 %v2, 1
	%v36 = and i32 %v35, 1
	%v37 = shl i32 %v36, 1
	%v38 = or i32 %v34, %v37
	%v39 = mul i32 %v38, 4
	%v40 = zext i32 %v39 to i64
	%v41 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v40
	%v42 = bitcast i8 addrspace(3)* %v41 to float addrspace(3)*
	store float %v33, float addrspace(3)* %v42, align 4
	call void @llvm.nvvm.barrier0()
	%v43 = and i32 %v1, 3
	%v44 = mul i32 %v43, 4
	%v45 = zext i32 %v44 to i64
	%v46 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v45
	%v47 = bitcast i8 addrspace(3)* %v46 to float addrspace(3)*
	%v48 = load float, float addrspace(3)* %v47, align 4
	%v49 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v48, i32 1, i32 31)
	%v50 = call float @llvm.maxnum.f32(float %v48, float %v49)
	%v51 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v50, i32 2, i32 31)
	%v52 = call float @llvm.maxnum.f32(float %v50, float %v51)
	%v53 = fsub float %v17, %v52
	%v54 = fsub float %v18, %v52
	%v55 = fsub float %v19, %v52
	%v56 = fsub float %v20, %v52
	%v57 = fmul float %v53, 0x3FF7154760000000
	%v58 = call float @llvm.nvvm.ex2.approx.ftz.f(float %v57)
	%v59 = fmul float %v54, 0x3FF7154760000000
	%v60 = call float @llvm.nvvm.ex2.approx.ftz.f(float %v59)
	%v61 = fmul float %v55, 0x3FF7154760000000
	%v62 = call float @llvm.nvvm.ex2.approx.ftz.f(float %v61)
	%v63 = fmul float %v56, 0x3FF7154760000000
	%v64 = call float @llvm.nvvm.ex2.approx.ftz.f(float %v63)
	%v65 = fadd float %v58, %v60
	%v66 = fadd float %v65, %v62
	%v67 = fadd float %v66, %v64
	%v68 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v67, i32 1, i32 31)
	%v69 = fadd float %v67, %v68
	%v70 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v69, i32 2, i32 31)
	%v71 = fadd float %v69, %v70
	%v72 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v71, i32 4, i32 31)
	%v73 = fadd float %v71, %v72
	%v74 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v73, i32 8, i32 31)
	%v75 = fadd float %v73, %v74
	%v76 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v75, i32 16, i32 31)
	%v77 = fadd float %v75, %v76
	%v78 = and i32 %v2, 1
	%v79 = lshr i32 %v2, 1
	%v80 = and i32 %v79, 1
	%v81 = shl i32 %v80, 1
	%v82 = or i32 %v78, %v81
	%v83 = mul i32 %v82, 4
	%v84 = add i32 128, %v83
	%v85 = zext i32 %v84 to i64
	%v86 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v85
	%v87 = bitcast i8 addrspace(3)* %v86 to float addrspace(3)*
	store float %v77, float addrspace(3)* %v87, align 4
	call void @llvm.nvvm.barrier0()
	%v88 = and i32 %v1, 3
	%v89 = mul i32 %v88, 4
	%v90 = add i32 128, %v89
	%v91 = zext i32 %v90 to i64
	%v92 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v91
	%v93 = bitcast i8 addrspace(3)* %v92 to float addrspace(3)*
	%v94 = load float, float addrspace(3)* %v93, align 4
	%v95 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v94, i32 1, i32 31)
	%v96 = fadd float %v94, %v95
	%v97 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v96, i32 2, i32 31)
	%v98 = fadd float %v96, %v97
	%v99 = call float asm "div.full.f32 $0, $1, $2;", "=f,f,f"(float 1.0, float %v98)
	%v100 = fmul float %v58, %v99
	%v101 = fmul float %v60, %v99
	%v102 = fmul float %v62, %v99
	%v103 = fmul float %v64, %v99
	%v104 = mul i32 %v8, %out_stride
	%v105 = sext i32 %v104 to i64
	%v106 = getelementptr inbounds float, float addrspace(1)* %out, i64 %v105
	%v107 = sext i32 %v7 to i64
	%v108 = getelementptr inbounds float, float addrspace(1)* %v106, i64 %v107
	%v109 = zext i1 %v12 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.v4.f32 [$0], {$2, $3, $4, $5};\0A}", "l,r,f,f,f,f"(float addrspace(1)* %v108, i32 %v109, float %v100, float %v101, float %v102, float %v103)
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare float @llvm.maxnum.f32(float %p0, float %p1)

declare float @llvm.nvvm.shfl.sync.bfly.f32(i32 %p0, float %p1, i32 %p2, i32 %p3)

declare void @llvm.nvvm.barrier0()

declare float @llvm.nvvm.ex2.approx.ftz.f(float %p0)

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*, float addrspace(1)*, i32, i32, i32)* @softmax, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, i32, i32, i32)* @softmax, !"maxntidx", i32 128}
