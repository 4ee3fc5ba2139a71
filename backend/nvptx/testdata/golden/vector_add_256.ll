target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @vector_add(float addrspace(1)* %x, float addrspace(1)* %y, float addrspace(1)* %out, i32 %n) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%v1 = and i32 %v0, 31
	%v2 = lshr i32 %v0, 5
	%v3 = and i32 %v1, 31
	%v4 = shl i32 %v3, 2
	%v5 = and i32 %v2, 1
	%v6 = shl i32 %v5, 7
	%v7 = or i32 %v4, %v6
	br label %body

body:
	%v8 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v9 = mul i32 %v8, 256
	%v10 = add i32 %v9, %v7
	%v11 = icmp slt i32 %v10, %n
	%v12 = sext i32 %v10 to i64
	%v13 = getelementptr inbounds float, float addrspace(1)* %x, i64 %v12
	%v14 = zext i1 %v11 to i32
	%v15 = call { float, float, float, float } asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $5, 0;\0A\09mov.f32 $0, $6;\0A\09mov.f32 $1, $7;\0A\09mov.f32 $2, $8;\0A\09mov.f32 $3, $9;\0A\09@%p ld.global.v4.f32 {$0, $1, $2, $3}, [$4];\0A}", "=f,=f,=f,=f,l,r,f,f,f,f"(float addrspace(1)* %v13, i32 %v14, float 0.0, float 0.0, float 0.0, float 0.0)
	%v16 = extractvalue { float, float, float, float } %v15, 0
	%v17 = extractvalue { float, float, float, float } %v15, 1
	%v18 = extractvalue { float, float, float, float } %v15, 2
	%v19 = extractvalue { float, float, float, float } %v15, 3
	%v20 = sext i32 %v10 to i64
	%v21 = getelementptr inbounds float, float addrspace(1)* %y, i64 %v20
	%v22 = zext i1 %v11 to i32
	%v23 = call { float, float, float, float } asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $5, 0;\0A\09mov.f32 $0, $6;\0A\09mov.f32 $1, $7;\0A\09mov.f32 $2, $8;\0A\09mov.f32 $3, $9;\0A\09@%p ld.global.v4.f32 {$0, $1, $2, $3}, [$4];\0A}", "=f,=f,=f,=f,l,r,f,f,f,f"(float addrspace(1)* %v21, i32 %v22, float 0.0, float 0.0, float 0.0, float 0.0)
	%v24 = extractvalue { float, float, float, float } %v23, 0
	%v25 = extractvalue { float, float, float, float } %v23, 1
	%v26 = extractvalue { float, float, float, float } %v23, 2
	%v27 = extractvalue { float, float, float, float } %v23, 3
	%v28 = sext i32 %v10 to i64
	%v29 = getelementptr inbounds float, float addrspace(1)* %out, i64 %v28
	%v30 = fadd float %v16, %v24
	%v31 = fadd float %v17, %v25
	%v32 = fadd float %v18, %v26
	%v33 = fadd float %v19, %v27
	%v34 = zext i1 %v11 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.v4.f32 [$0], {$2, $3, $4, $5};\0A}", "l,r,f,f,f,f"(float addrspace(1)* %v29, i32 %v34, float %v30, float %v31, float %v32, float %v33)
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i32)* @vector_add, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i32)* @vector_add, !"maxntidx", i32 64}
