target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define void @cluster_exchange(float addrspace(1)* %x, float addrspace(1)* %out) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%v1 = and i32 %v0, 31
	%v2 = lshr i32 %v0, 5
	%v3 = and i32 %v1, 31
	%v4 = and i32 %v2, 3
	%v5 = shl i32 %v4, 5
	%v6 = or i32 %v3, %v5
	%v7 = ptrtoint [0 x i8] addrspace(3)* @global_smem to i32
	br label %body

body:
	%v8 = call i32 asm "mov.u32 $0, %cluster_ctaid.x;", "=r"()
	%v9 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v10 = mul i32 %v6, 4
	%v11 = zext i32 %v10 to i64
	%v12 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v11
	%v13 = bitcast i8 addrspace(3)* %v12 to float addrspace(3)*
	%v14 = mul i32 %v9, 128
	%v15 = sext i32 %v14 to i64
	%v16 = getelementptr inbounds float, float addrspace(1)* %x, i64 %v15
	%v17 = sext i32 %v6 to i64
	%v18 = getelementptr inbounds float, float addrspace(1)* %v16, i64 %v17
	%v19 = bitcast float addrspace(1)* %v18 to float addrspace(1)*
	%v20 = load float, float addrspace(1)* %v19, align 4
	%v21 = bitcast float addrspace(3)* %v13 to float addrspace(3)*
	store float %v20, float addrspace(3)* %v21, align 4
	call void asm sideeffect "barrier.cluster.arrive.release.aligned;\0A\09barrier.cluster.wait.acquire.aligned;", "~{memory}"() #0
	%v22 = sub i32 1, %v8
	%v23 = call i32 asm "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r"(i32 %v7, i32 %v22)
	%v24 = mul i32 %v6, 4
	%v25 = add i32 %v23, %v24
	%v26 = call float asm sideeffect "ld.shared::cluster.f32 $0, [$1];", "=f,r,~{memory}"(i32 %v25)
	call void asm sideeffect "barrier.cluster.arrive.release.aligned;\0A\09barrier.cluster.wait.acquire.aligned;", "~{memory}"() #0
	%v27 = sext i32 %v14 to i64
	%v28 = getelementptr inbounds float, float addrspace(1)* %out, i64 %v27
	%v29 = sext i32 %v6 to i64
	%v30 = getelementptr inbounds float, float addrspace(1)* %v28, i64 %v29
	%v31 = bitcast float addrspace(1)* %v30 to float addrspace(1)*
	store float %v26, float addrspace(1)* %v31, align 4
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

attributes #0 = { convergent }

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*, float addrspace(1)*)* @cluster_exchange, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, float addrspace(1)*)* @cluster_exchange, !"maxntidx", i32 128}
