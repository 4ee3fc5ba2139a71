target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define void @softmax(float addrspace(1)* %out, float addrspace(1)* %in, i32 %in_stride, i32 %out_stride, i32 %n_cols) {
entry:
	%0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%1 = and i32 %0, 31
	%2 = lshr i32 %0, 5
	%3 = and i32 %1, 31
	%4 = shl i32 %3, 2
	%5 = and i32 %2, 3
	%6 = shl i32 %5, 7
	%7 = or i32 %4, %6
	br label %body

body:
	%8 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%9 = mul i32 %8, %in_stride
	%10 = sext i32 %9 to i64
	%11 = getelementptr inbounds float, float addrspace(1)* %in, i64 %10
	%12 = icmp slt i32 %7, %n_cols
	%13 = sext i32 %7 to i64
	%14 = getelementptr inbounds float, float addrspace(1)* %11, i64 %13
	%15 = zext i1 %12 to i32
	%16 = call { float, float, float, float } asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $5, 0;\0A\09mov.f32 $0, $6;\0A\09mov.f32 $1, $7;\0A\09mov.f32 $2, $8;\0A\09mov.f32 $3, $9;\0A\09@%p ld.global.v4.f32 {$0, $1, $2, $3}, [$4];\0A}", "=f,=f,=f,=f,l,r,f,f,f,f"(float addrspace(1)* %14, i32 %15, float 0xFFF0000000000000, float 0xFFF0000000000000, float 0xFFF0000000000000, float 0xFFF0000000000000)
	%17 = extractvalue { float, float, float, float } %16, 0
	%18 = extractvalue { float, float, float, float } %16, 1
	%19 = extractvalue { float, float, float, float } %16, 2
	%20 = extractvalue { float, float, float, float } %16, 3
	%21 = call float @llvm.maxnum.f32(float %17, float %18)
	%22 = call float @llvm.maxnum.f32(float %21, float %19)
	%23 = call float @llvm.maxnum.f32(float %22, float %20)
	%24 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %23, i32 1, i32 31)
	%25 = call float @llvm.maxnum.f32(float %23, float %24)
	%26 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %25, i32 2, i32 31)
	%27 = call float @llvm.maxnum.f32(float %25, float %26)
	%28 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %27, i32 4, i32 31)
	%29 = call float @llvm.maxnum.f32(float %27, float %28)
	%30 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %29, i32 8, i32 31)
	%31 = call float @llvm.maxnum.f32(float %29, float %30)
	%32 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %31, i32 16, i32 31)
	%33 = call float @llvm.maxnum.f32(float %31, float %32)
	%34 = and i32 %2, 1
	%35 = lshr i32 %2, 1
	%36 = and i32 %35, 1
	%37 = shl i32 %36, 1
	%38 = or i32 %34, %37
	%39 = mul i32 %38, 4
	%40 = zext i32 %39 to i64
	%41 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %40
	%42 = bitcast i8 addrspace(3)* %41 to float addrspace(3)*
	store float %33, float addrspace(3)* %42, align 4
	call void @llvm.nvvm.barrier0()
	%43 = and i32 %1, 3
	%44 = mul i32 %43, 4
	%45 = zext i32 %44 to i64
	%46 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %45
	%47 = bitcast i8 addrspace(3)* %46 to float addrspace(3)*
	%48 = load float, float addrspace(3)* %47, align 4
	%49 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %48, i32 1, i32 31)
	%50 = call float @llvm.maxnum.f32(float %48, float %49)
	%51 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %50, i32 2, i32 31)
	%52 = call float @llvm.maxnum.f32(float %50, float %51)
	%53 = fsub float %17, %52
	%54 = fsub float %18, %52
	%55 = fsub float %19, %52
	%56 = fsub float %20, %52
	%57 = fmul float %53, 0x3FF7154760000000
	%58 = call float @llvm.nvvm.ex2.approx.f(float %57)
	%59 = fmul float %54, 0x3FF7154760000000
	%60 = call float @llvm.nvvm.ex2.approx.f(float %59)
	%61 = fmul float %55, 0x3FF7154760000000
	%62 = call float @llvm.nvvm.ex2.approx.f(float %61)
	%63 = fmul float %56, 0x3FF7154760000000
	%64 = call float @llvm.nvvm.ex2.approx.f(float %63)
	%65 = fadd float %58, %60
	%66 = fadd float %65, %62
	%67 = fadd float %66, %64
	%68 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %67, i32 1, i32 31)
	%69 = fadd float %67, %68
	%70 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %69, i32 2, i32 31)
	%71 = fadd float %69, %70
	%72 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %71, i32 4, i32 31)
	%73 = fadd float %71, %72
	%74 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %73, i32 8, i32 31)
	%75 = fadd float %73, %74
	%76 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %75, i32 16, i32 31)
	%77 = fadd float %75, %76
	%78 = and i32 %2, 1
	%79 = lshr i32 %2, 1
	%80 = and i32 %79, 1
	%81 = shl i32 %80, 1
	%82 = or i32 %78, %81
	%83 = mul i32 %82, 4
	%84 = add i32 128, %83
	%85 = zext i32 %84 to i64
	%86 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %85
	%87 = bitcast i8 addrspace(3)* %86 to float addrspace(3)*
	store float %77, float addrspace(3)* %87, align 4
	call void @llvm.nvvm.barrier0()
	%88 = and i32 %1, 3
	%89 = mul i32 %88, 4
	%90 = add i32 128, %89
	%91 = zext i32 %90 to i64
	%92 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %91
	%93 = bitcast i8 addrspace(3)* %92 to float addrspace(3)*
	%94 = load float, float addrspace(3)* %93, align 4
	%95 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %94, i32 1, i32 31)
	%96 = fadd float %94, %95
	%97 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %96, i32 2, i32 31)
	%98 = fadd float %96, %97
	%99 = call float asm "div.full.f32 $0, $1, $2;", "=f,f,f"(float 1.0, float %98)
	%100 = fmul float %58, %99
	%101 = fmul float %60, %99
	%102 = fmul float %62, %99
	%103 = fmul float %64, %99
	%104 = mul i32 %8, %out_stride
	%105 = sext i32 %104 to i64
	%106 = getelementptr inbounds float, float addrspace(1)* %out, i64 %105
	%107 = sext i32 %7 to i64
	%108 = getelementptr inbounds float, float addrspace(1)* %106, i64 %107
	%109 = zext i1 %12 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.v4.f32 [$0], {$2, $3, $4, $5};\0A}", "l,r,f,f,f,f"(float addrspace(1)* %108, i32 %109, float %100, float %101, float %102, float %103)
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare float @llvm.maxnum.f32(float %p0, float %p1)

declare float @llvm.nvvm.shfl.sync.bfly.f32(i32 %p0, float %p1, i32 %p2, i32 %p3)

declare void @llvm.nvvm.barrier0()

declare float @llvm.nvvm.ex2.approx.f(float %p0)

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*, float addrspace(1)*, i32, i32, i32)* @softmax, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, i32, i32, i32)* @softmax, !"maxntidx", i32 128}
