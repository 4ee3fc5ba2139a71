target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @vector_add(float addrspace(1)* %x, float addrspace(1)* %y, float addrspace(1)* %out, i32 %n) {
entry:
	%0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%1 = and i32 %0, 31
	%2 = lshr i32 %0, 5
	%3 = and i32 %1, 31
	%4 = shl i32 %3, 2
	%5 = and i32 %2, 1
	%6 = shl i32 %5, 7
	%7 = or i32 %4, %6
	br label %body

body:
	%8 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%9 = mul i32 %8, 256
	%10 = add i32 %9, %7
	%11 = icmp slt i32 %10, %n
	%12 = sext i32 %10 to i64
	%13 = getelementptr inbounds float, float addrspace(1)* %x, i64 %12
	%14 = zext i1 %11 to i32
	%15 = call { float, float, float, float } asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $5, 0;\0A\09mov.f32 $0, $6;\0A\09mov.f32 $1, $7;\0A\09mov.f32 $2, $8;\0A\09mov.f32 $3, $9;\0A\09@%p ld.global.v4.f32 {$0, $1, $2, $3}, [$4];\0A}", "=f,=f,=f,=f,l,r,f,f,f,f"(float addrspace(1)* %13, i32 %14, float 0.0, float 0.0, float 0.0, float 0.0)
	%16 = extractvalue { float, float, float, float } %15, 0
	%17 = extractvalue { float, float, float, float } %15, 1
	%18 = extractvalue { float, float, float, float } %15, 2
	%19 = extractvalue { float, float, float, float } %15, 3
	%20 = sext i32 %10 to i64
	%21 = getelementptr inbounds float, float addrspace(1)* %y, i64 %20
	%22 = zext i1 %11 to i32
	%23 = call { float, float, float, float } asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $5, 0;\0A\09mov.f32 $0, $6;\0A\09mov.f32 $1, $7;\0A\09mov.f32 $2, $8;\0A\09mov.f32 $3, $9;\0A\09@%p ld.global.v4.f32 {$0, $1, $2, $3}, [$4];\0A}", "=f,=f,=f,=f,l,r,f,f,f,f"(float addrspace(1)* %21, i32 %22, float 0.0, float 0.0, float 0.0, float 0.0)
	%24 = extractvalue { float, float, float, float } %23, 0
	%25 = extractvalue { float, float, float, float } %23, 1
	%26 = extractvalue { float, float, float, float } %23, 2
	%27 = extractvalue { float, float, float, float } %23, 3
	%28 = sext i32 %10 to i64
	%29 = getelementptr inbounds float, float addrspace(1)* %out, i64 %28
	%30 = fadd float %16, %24
	%31 = fadd float %17, %25
	%32 = fadd float %18, %26
	%33 = fadd float %19, %27
	%34 = zext i1 %11 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.v4.f32 [$0], {$2, $3, $4, $5};\0A}", "l,r,f,f,f,f"(float addrspace(1)* %29, i32 %34, float %30, float %31, float %32, float %33)
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i32)* @vector_add, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i32)* @vector_add, !"maxntidx", i32 64}
