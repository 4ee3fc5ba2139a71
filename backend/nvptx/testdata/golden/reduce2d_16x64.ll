target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define void @reduce2d(float addrspace(1)* %x, float addrspace(1)* %rowsum, float addrspace(1)* %colmax) {
entry:
	%0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%1 = and i32 %0, 31
	%2 = lshr i32 %0, 5
	%3 = lshr i32 %1, 4
	%4 = and i32 %3, 1
	%5 = and i32 %2, 1
	%6 = shl i32 %5, 1
	%7 = or i32 %4, %6
	%8 = and i32 %1, 15
	%9 = shl i32 %8, 2
	%10 = and i32 %1, 15
	%11 = mul i32 %7, 4
	%12 = add i32 512, %11
	%13 = zext i32 %12 to i64
	%14 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %13
	%15 = mul i32 %10, 4
	%16 = add i32 512, %15
	%17 = zext i32 %16 to i64
	%18 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %17
	%19 = and i32 %1, 16
	%20 = and i32 %2, 1
	%21 = or i32 %19, %20
	%22 = icmp eq i32 %21, 0
	%23 = and i32 %1, 31
	%24 = and i32 %2, 1
	%25 = shl i32 %24, 5
	%26 = or i32 %23, %25
	%27 = and i32 %1, 15
	%28 = shl i32 %27, 2
	%29 = mul i32 %9, 4
	%30 = add i32 512, %29
	%31 = zext i32 %30 to i64
	%32 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %31
	%33 = mul i32 %26, 4
	%34 = add i32 512, %33
	%35 = zext i32 %34 to i64
	%36 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %35
	br label %body

body:
	%37 = add i32 %7, 4
	%38 = add i32 %7, 8
	%39 = add i32 %7, 12
	%40 = mul i32 %7, 64
	%41 = mul i32 %37, 64
	%42 = mul i32 %38, 64
	%43 = mul i32 %39, 64
	%44 = add i32 %40, %9
	%45 = add i32 %41, %9
	%46 = add i32 %42, %9
	%47 = add i32 %43, %9
	%48 = sext i32 %44 to i64
	%49 = getelementptr inbounds float, float addrspace(1)* %x, i64 %48
	%50 = sext i32 %45 to i64
	%51 = getelementptr inbounds float, float addrspace(1)* %x, i64 %50
	%52 = sext i32 %46 to i64
	%53 = getelementptr inbounds float, float addrspace(1)* %x, i64 %52
	%54 = sext i32 %47 to i64
	%55 = getelementptr inbounds float, float addrspace(1)* %x, i64 %54
	%56 = bitcast float addrspace(1)* %49 to <4 x float> addrspace(1)*
	%57 = load <4 x float>, <4 x float> addrspace(1)* %56, align 16
	%58 = extractelement <4 x float> %57, i32 0
	%59 = extractelement <4 x float> %57, i32 1
	%60 = extractelement <4 x float> %57, i32 2
	%61 = extractelement <4 x float> %57, i32 3
	%62 = bitcast float addrspace(1)* %51 to <4 x float> addrspace(1)*
	%63 = load <4 x float>, <4 x float> addrspace(1)* %62, align 16
	%64 = extractelement <4 x float> %63, i32 0
	%65 = extractelement <4 x float> %63, i32 1
	%66 = extractelement <4 x float> %63, i32 2
	%67 = extractelement <4 x float> %63, i32 3
	%68 = bitcast float addrspace(1)* %53 to <4 x float> addrspace(1)*
	%69 = load <4 x float>, <4 x float> addrspace(1)* %68, align 16
	%70 = extractelement <4 x float> %69, i32 0
	%71 = extractelement <4 x float> %69, i32 1
	%72 = extractelement <4 x float> %69, i32 2
	%73 = extractelement <4 x float> %69, i32 3
	%74 = bitcast float addrspace(1)* %55 to <4 x float> addrspace(1)*
	%75 = load <4 x float>, <4 x float> addrspace(1)* %74, align 16
	%76 = extractelement <4 x float> %75, i32 0
	%77 = extractelement <4 x float> %75, i32 1
	%78 = extractelement <4 x float> %75, i32 2
	%79 = extractelement <4 x float> %75, i32 3
	%80 = sext i32 %10 to i64
	%81 = getelementptr inbounds float, float addrspace(1)* %rowsum, i64 %80
	%82 = fadd float %58, %59
	%83 = fadd float %82, %60
	%84 = fadd float %83, %61
	%85 = fadd float %64, %65
	%86 = fadd float %85, %66
	%87 = fadd float %86, %67
	%88 = fadd float %70, %71
	%89 = fadd float %88, %72
	%90 = fadd float %89, %73
	%91 = fadd float %76, %77
	%92 = fadd float %91, %78
	%93 = fadd float %92, %79
	%94 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %84, i32 1, i32 31)
	%95 = fadd float %84, %94
	%96 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %87, i32 1, i32 31)
	%97 = fadd float %87, %96
	%98 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %90, i32 1, i32 31)
	%99 = fadd float %90, %98
	%100 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %93, i32 1, i32 31)
	%101 = fadd float %93, %100
	%102 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %95, i32 2, i32 31)
	%103 = fadd float %95, %102
	%104 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %97, i32 2, i32 31)
	%105 = fadd float %97, %104
	%106 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %99, i32 2, i32 31)
	%107 = fadd float %99, %106
	%108 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %101, i32 2, i32 31)
	%109 = fadd float %101, %108
	%110 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %103, i32 4, i32 31)
	%111 = fadd float %103, %110
	%112 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %105, i32 4, i32 31)
	%113 = fadd float %105, %112
	%114 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %107, i32 4, i32 31)
	%115 = fadd float %107, %114
	%116 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %109, i32 4, i32 31)
	%117 = fadd float %109, %116
	%118 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %111, i32 8, i32 31)
	%119 = fadd float %111, %118
	%120 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %113, i32 8, i32 31)
	%121 = fadd float %113, %120
	%122 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %115, i32 8, i32 31)
	%123 = fadd float %115, %122
	%124 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %117, i32 8, i32 31)
	%125 = fadd float %117, %124
	%126 = bitcast i8 addrspace(3)* %14 to float addrspace(3)*
	store float %119, float addrspace(3)* %126, align 4
	%127 = getelementptr inbounds i8, i8 addrspace(3)* %14, i32 16
	%128 = bitcast i8 addrspace(3)* %127 to float addrspace(3)*
	store float %121, float addrspace(3)* %128, align 4
	%129 = getelementptr inbounds i8, i8 addrspace(3)* %14, i32 32
	%130 = bitcast i8 addrspace(3)* %129 to float addrspace(3)*
	store float %123, float addrspace(3)* %130, align 4
	%131 = getelementptr inbounds i8, i8 addrspace(3)* %14, i32 48
	%132 = bitcast i8 addrspace(3)* %131 to float addrspace(3)*
	store float %125, float addrspace(3)* %132, align 4
	call void @llvm.nvvm.barrier0()
	%133 = bitcast i8 addrspace(3)* %18 to float addrspace(3)*
	%134 = load float, float addrspace(3)* %133, align 4
	%135 = zext i1 %22 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %81, i32 %135, float %134)
	%136 = sext i32 %26 to i64
	%137 = getelementptr inbounds float, float addrspace(1)* %colmax, i64 %136
	%138 = call float @llvm.maxnum.f32(float %58, float %64)
	%139 = call float @llvm.maxnum.f32(float %59, float %65)
	%140 = call float @llvm.maxnum.f32(float %60, float %66)
	%141 = call float @llvm.maxnum.f32(float %61, float %67)
	%142 = call float @llvm.maxnum.f32(float %138, float %70)
	%143 = call float @llvm.maxnum.f32(float %139, float %71)
	%144 = call float @llvm.maxnum.f32(float %140, float %72)
	%145 = call float @llvm.maxnum.f32(float %141, float %73)
	%146 = call float @llvm.maxnum.f32(float %142, float %76)
	%147 = call float @llvm.maxnum.f32(float %143, float %77)
	%148 = call float @llvm.maxnum.f32(float %144, float %78)
	%149 = call float @llvm.maxnum.f32(float %145, float %79)
	%150 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %146, i32 16, i32 31)
	%151 = call float @llvm.maxnum.f32(float %146, float %150)
	%152 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %147, i32 16, i32 31)
	%153 = call float @llvm.maxnum.f32(float %147, float %152)
	%154 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %148, i32 16, i32 31)
	%155 = call float @llvm.maxnum.f32(float %148, float %154)
	%156 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %149, i32 16, i32 31)
	%157 = call float @llvm.maxnum.f32(float %149, float %156)
	%158 = add i32 %28, 1
	%159 = add i32 %28, 2
	%160 = add i32 %28, 3
	%161 = and i32 %2, 1
	%162 = mul i32 %161, 64
	%163 = add i32 %162, %28
	%164 = mul i32 %163, 4
	%165 = zext i32 %164 to i64
	%166 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %165
	%167 = bitcast i8 addrspace(3)* %166 to float addrspace(3)*
	store float %151, float addrspace(3)* %167, align 4
	%168 = mul i32 %161, 64
	%169 = add i32 %168, %158
	%170 = mul i32 %169, 4
	%171 = zext i32 %170 to i64
	%172 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %171
	%173 = bitcast i8 addrspace(3)* %172 to float addrspace(3)*
	store float %153, float addrspace(3)* %173, align 4
	%174 = mul i32 %161, 64
	%175 = add i32 %174, %159
	%176 = mul i32 %175, 4
	%177 = zext i32 %176 to i64
	%178 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %177
	%179 = bitcast i8 addrspace(3)* %178 to float addrspace(3)*
	store float %155, float addrspace(3)* %179, align 4
	%180 = mul i32 %161, 64
	%181 = add i32 %180, %160
	%182 = mul i32 %181, 4
	%183 = zext i32 %182 to i64
	%184 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %183
	%185 = bitcast i8 addrspace(3)* %184 to float addrspace(3)*
	store float %157, float addrspace(3)* %185, align 4
	call void @llvm.nvvm.barrier0()
	%186 = mul i32 %28, 4
	%187 = zext i32 %186 to i64
	%188 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %187
	%189 = bitcast i8 addrspace(3)* %188 to float addrspace(3)*
	%190 = load float, float addrspace(3)* %189, align 4
	%191 = add i32 64, %28
	%192 = mul i32 %191, 4
	%193 = zext i32 %192 to i64
	%194 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %193
	%195 = bitcast i8 addrspace(3)* %194 to float addrspace(3)*
	%196 = load float, float addrspace(3)* %195, align 4
	%197 = call float @llvm.maxnum.f32(float %190, float %196)
	%198 = mul i32 %158, 4
	%199 = zext i32 %198 to i64
	%200 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %199
	%201 = bitcast i8 addrspace(3)* %200 to float addrspace(3)*
	%202 = load float, float addrspace(3)* %201, align 4
	%203 = add i32 64, %158
	%204 = mul i32 %203, 4
	%205 = zext i32 %204 to i64
	%206 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %205
	%207 = bitcast i8 addrspace(3)* %206 to float addrspace(3)*
	%208 = load float, float addrspace(3)* %207, align 4
	%209 = call float @llvm.maxnum.f32(float %202, float %208)
	%210 = mul i32 %159, 4
	%211 = zext i32 %210 to i64
	%212 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %211
	%213 = bitcast i8 addrspace(3)* %212 to float addrspace(3)*
	%214 = load float, float addrspace(3)* %213, align 4
	%215 = add i32 64, %159
	%216 = mul i32 %215, 4
	%217 = zext i32 %216 to i64
	%218 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %217
	%219 = bitcast i8 addrspace(3)* %218 to float addrspace(3)*
	%220 = load float, float addrspace(3)* %219, align 4
	%221 = call float @llvm.maxnum.f32(float %214, float %220)
	%222 = mul i32 %160, 4
	%223 = zext i32 %222 to i64
	%224 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %223
	%225 = bitcast i8 addrspace(3)* %224 to float addrspace(3)*
	%226 = load float, float addrspace(3)* %225, align 4
	%227 = add i32 64, %160
	%228 = mul i32 %227, 4
	%229 = zext i32 %228 to i64
	%230 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %229
	%231 = bitcast i8 addrspace(3)* %230 to float addrspace(3)*
	%232 = load float, float addrspace(3)* %231, align 4
	%233 = call float @llvm.maxnum.f32(float %226, float %232)
	%234 = insertelement <4 x float> undef, float %197, i32 0
	%235 = insertelement <4 x float> %234, float %209, i32 1
	%236 = insertelement <4 x float> %235, float %221, i32 2
	%237 = insertelement <4 x float> %236, float %233, i32 3
	%238 = bitcast i8 addrspace(3)* %32 to <4 x float> addrspace(3)*
	store <4 x float> %237, <4 x float> addrspace(3)* %238, align 16
	call void @llvm.nvvm.barrier0()
	%239 = bitcast i8 addrspace(3)* %36 to float addrspace(3)*
	%240 = load float, float addrspace(3)* %239, align 4
	%241 = bitcast float addrspace(1)* %137 to float addrspace(1)*
	store float %240, float addrspace(1)* %241, align 4
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare float @llvm.nvvm.shfl.sync.bfly.f32(i32 %p0, float %p1, i32 %p2, i32 %p3)

declare void @llvm.nvvm.barrier0()

declare float @llvm.maxnum.f32(float %p0, float %p1)

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*)* @reduce2d, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*)* @reduce2d, !"maxntidx", i32 64}
