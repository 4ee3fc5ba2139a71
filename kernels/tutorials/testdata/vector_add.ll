target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @vector_add(float addrspace(1)* %x, float addrspace(1)* %y, float addrspace(1)* %out, i32 %n) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%v1 = and i32 %v0, 31
	%v2 = lshr i32 %v0, 5
	%v3 = and i32 %v1, 31
	%v4 = shl i32 %v3, 1
	%v5 = and i32 %v2, 3
	%v6 = shl i32 %v5, 6
	%v7 = or i32 %v4, %v6
	br label %body

body:
	%v8 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v9 = mul i32 %v8, 256
	%v10 = add i32 %v7, 1
	%v11 = add i32 %v9, %v7
	%v12 = add i32 %v9, %v10
	%v13 = icmp slt i32 %v11, %n
	%v14 = icmp slt i32 %v12, %n
	%v15 = sext i32 %v11 to i64
	%v16 = getelementptr inbounds float, float addrspace(1)* %x, i64 %v15
	%v17 = sext i32 %v12 to i64
	%v18 = getelementptr inbounds float, float addrspace(1)* %x, i64 %v17
	%v19 = and i1 %v13, %v14
	%v20 = zext i1 %v19 to i32
	%v21 = call { float, float } asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $3, 0;\0A\09mov.f32 $0, $4;\0A\09mov.f32 $1, $5;\0A\09@%p ld.global.v2.f32 {$0, $1}, [$2];\0A}", "=f,=f,l,r,f,f"(float addrspace(1)* %v16, i32 %v20, float 0.0, float 0.0)
	%v22 = extractvalue { float, float } %v21, 0
	%v23 = extractvalue { float, float } %v21, 1
	%v24 = xor i1 %v19, true
	%v25 = and i1 %v13, %v24
	%v26 = zext i1 %v25 to i32
	%v27 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v16, i32 %v26, float 0.0)
	%v28 = select i1 %v19, float %v22, float %v27
	%v29 = and i1 %v14, %v24
	%v30 = zext i1 %v29 to i32
	%v31 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v18, i32 %v30, float 0.0)
	%v32 = select i1 %v19, float %v23, float %v31
	%v33 = sext i32 %v11 to i64
	%v34 = getelementptr inbounds float, float addrspace(1)* %y, i64 %v33
	%v35 = sext i32 %v12 to i64
	%v36 = getelementptr inbounds float, float addrspace(1)* %y, i64 %v35
	%v37 = and i1 %v13, %v14
	%v38 = zext i1 %v37 to i32
	%v39 = call { float, float } asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $3, 0;\0A\09mov.f32 $0, $4;\0A\09mov.f32 $1, $5;\0A\09@%p ld.global.v2.f32 {$0, $1}, [$2];\0A}", "=f,=f,l,r,f,f"(float addrspace(1)* %v34, i32 %v38, float 0.0, float 0.0)
	%v40 = extractvalue { float, float } %v39, 0
	%v41 = extractvalue { float, float } %v39, 1
	%v42 = xor i1 %v37, true
	%v43 = and i1 %v13, %v42
	%v44 = zext i1 %v43 to i32
	%v45 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v34, i32 %v44, float 0.0)
	%v46 = select i1 %v37, float %v40, float %v45
	%v47 = and i1 %v14, %v42
	%v48 = zext i1 %v47 to i32
	%v49 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v36, i32 %v48, float 0.0)
	%v50 = select i1 %v37, float %v41, float %v49
	%v51 = sext i32 %v11 to i64
	%v52 = getelementptr inbounds float, float addrspace(1)* %out, i64 %v51
	%v53 = sext i32 %v12 to i64
	%v54 = getelementptr inbounds float, float addrspace(1)* %out, i64 %v53
	%v55 = fadd float %v28, %v46
	%v56 = fadd float %v32, %v50
	%v57 = and i1 %v13, %v14
	%v58 = zext i1 %v57 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.v2.f32 [$0], {$2, $3};\0A}", "l,r,f,f"(float addrspace(1)* %v52, i32 %v58, float %v55, float %v56)
	%v59 = xor i1 %v57, true
	%v60 = and i1 %v13, %v59
	%v61 = zext i1 %v60 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %v52, i32 %v61, float %v55)
	%v62 = and i1 %v14, %v59
	%v63 = zext i1 %v62 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %v54, i32 %v63, float %v56)
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i32)* @vector_add, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i32)* @vector_add, !"maxntidx", i32 128}
