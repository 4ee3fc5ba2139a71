target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define void @reduce2d(float addrspace(1)* %x, float addrspace(1)* %rowsum, float addrspace(1)* %colmax) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%v1 = and i32 %v0, 31
	%v2 = lshr i32 %v0, 5
	%v3 = lshr i32 %v1, 4
	%v4 = and i32 %v3, 1
	%v5 = and i32 %v2, 1
	%v6 = shl i32 %v5, 1
	%v7 = or i32 %v4, %v6
	%v8 = and i32 %v1, 15
	%v9 = shl i32 %v8, 2
	%v10 = and i32 %v1, 15
	%v11 = mul i32 %v7, 4
	%v12 = add i32 512, %v11
	%v13 = zext i32 %v12 to i64
	%v14 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v13
	%v15 = mul i32 %v10, 4
	%v16 = add i32 512, %v15
	%v17 = zext i32 %v16 to i64
	%v18 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v17
	%v19 = and i32 %v1, 16
	%v20 = and i32 %v2, 1
	%v21 = or i32 %v19, %v20
	%v22 = icmp eq i32 %v21, 0
	%v23 = and i32 %v1, 31
	%v24 = and i32 %v2, 1
	%v25 = shl i32 %v24, 5
	%v26 = or i32 %v23, %v25
	%v27 = and i32 %v1, 15
	%v28 = shl i32 %v27, 2
	%v29 = mul i32 %v9, 4
	%v30 = add i32 512, %v29
	%v31 = zext i32 %v30 to i64
	%v32 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v31
	%v33 = mul i32 %v26, 4
	%v34 = add i32 512, %v33
	%v35 = zext i32 %v34 to i64
	%v36 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v35
	br label %body

body:
	%v37 = add i32 %v7, 4
	%v38 = add i32 %v7, 8
	%v39 = add i32 %v7, 12
	%v40 = mul i32 %v7, 64
	%v41 = mul i32 %v37, 64
	%v42 = mul i32 %v38, 64
	%v43 = mul i32 %v39, 64
	%v44 = add i32 %v40, %v9
	%v45 = add i32 %v41, %v9
	%v46 = add i32 %v42, %v9
	%v47 = add i32 %v43, %v9
	%v48 = sext i32 %v44 to i64
	%v49 = getelementptr inbounds float, float addrspace(1)* %x, i64 %v48
	%v50 = sext i32 %v45 to i64
	%v51 = getelementptr inbounds float, float addrspace(1)* %x, i64 %v50
	%v52 = sext i32 %v46 to i64
	%v53 = getelementptr inbounds float, float addrspace(1)* %x, i64 %v52
	%v54 = sext i32 %v47 to i64
	%v55 = getelementptr inbounds float, float addrspace(1)* %x, i64 %v54
	%v56 = bitcast float addrspace(1)* %v49 to <4 x float> addrspace(1)*
	%v57 = load <4 x float>, <4 x float> addrspace(1)* %v56, align 16
	%v58 = extractelement <4 x float> %v57, i32 0
	%v59 = extractelement <4 x float> %v57, i32 1
	%v60 = extractelement <4 x float> %v57, i32 2
	%v61 = extractelement <4 x float> %v57, i32 3
	%v62 = bitcast float addrspace(1)* %v51 to <4 x float> addrspace(1)*
	%v63 = load <4 x float>, <4 x float> addrspace(1)* %v62, align 16
	%v64 = extractelement <4 x float> %v63, i32 0
	%v65 = extractelement <4 x float> %v63, i32 1
	%v66 = extractelement <4 x float> %v63, i32 2
	%v67 = extractelement <4 x float> %v63, i32 3
	%v68 = bitcast float addrspace(1)* %v53 to <4 x float> addrspace(1)*
	%v69 = load <4 x float>, <4 x float> addrspace(1)* %v68, align 16
	%v70 = extractelement <4 x float> %v69, i32 0
	%v71 = extractelement <4 x float> %v69, i32 1
	%v72 = extractelement <4 x float> %v69, i32 2
	%v73 = extractelement <4 x float> %v69, i32 3
	%v74 = bitcast float addrspace(1)* %v55 to <4 x float> addrspace(1)*
	%v75 = load <4 x float>, <4 x float> addrspace(1)* %v74, align 16
	%v76 = extractelement <4 x float> %v75, i32 0
	%v77 = extractelement <4 x float> %v75, i32 1
	%v78 = extractelement <4 x float> %v75, i32 2
	%v79 = extractelement <4 x float> %v75, i32 3
	%v80 = sext i32 %v10 to i64
	%v81 = getelementptr inbounds float, float addrspace(1)* %rowsum, i64 %v80
	%v82 = fadd float %v58, %v59
	%v83 = fadd float %v82, %v60
	%v84 = fadd float %v83, %v61
	%v85 = fadd float %v64, %v65
	%v86 = fadd float %v85, %v66
	%v87 = fadd float %v86, %v67
	%v88 = fadd float %v70, %v71
	%v89 = fadd float %v88, %v72
	%v90 = fadd float %v89, %v73
	%v91 = fadd float %v76, %v77
	%v92 = fadd float %v91, %v78
	%v93 = fadd float %v92, %v79
	%v94 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v84, i32 1, i32 31)
	%v95 = fadd float %v84, %v94
	%v96 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v87, i32 1, i32 31)
	%v97 = fadd float %v87, %v96
	%v98 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v90, i32 1, i32 31)
	%v99 = fadd float %v90, %v98
	%v100 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v93, i32 1, i32 31)
	%v101 = fadd float %v93, %v100
	%v102 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v95, i32 2, i32 31)
	%v103 = fadd float %v95, %v102
	%v104 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v97, i32 2, i32 31)
	%v105 = fadd float %v97, %v104
	%v106 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v99, i32 2, i32 31)
	%v107 = fadd float %v99, %v106
	%v108 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v101, i32 2, i32 31)
	%v109 = fadd float %v101, %v108
	%v110 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v103, i32 4, i32 31)
	%v111 = fadd float %v103, %v110
	%v112 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v105, i32 4, i32 31)
	%v113 = fadd float %v105, %v112
	%v114 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v107, i32 4, i32 31)
	%v115 = fadd float %v107, %v114
	%v116 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v109, i32 4, i32 31)
	%v117 = fadd float %v109, %v116
	%v118 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v111, i32 8, i32 31)
	%v119 = fadd float %v111, %v118
	%v120 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v113, i32 8, i32 31)
	%v121 = fadd float %v113, %v120
	%v122 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v115, i32 8, i32 31)
	%v123 = fadd float %v115, %v122
	%v124 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v117, i32 8, i32 31)
	%v125 = fadd float %v117, %v124
	%v126 = bitcast i8 addrspace(3)* %v14 to float addrspace(3)*
	store float %v119, float addrspace(3)* %v126, align 4
	%v127 = getelementptr inbounds i8, i8 addrspace(3)* %v14, i32 16
	%v128 = bitcast i8 addrspace(3)* %v127 to float addrspace(3)*
	store float %v121, float addrspace(3)* %v128, align 4
	%v129 = getelementptr inbounds i8, i8 addrspace(3)* %v14, i32 32
	%v130 = bitcast i8 addrspace(3)* %v129 to float addrspace(3)*
	store float %v123, float addrspace(3)* %v130, align 4
	%v131 = getelementptr inbounds i8, i8 addrspace(3)* %v14, i32 48
	%v132 = bitcast i8 addrspace(3)* %v131 to float addrspace(3)*
	store float %v125, float addrspace(3)* %v132, align 4
	call void @llvm.nvvm.barrier0()
	%v133 = bitcast i8 addrspace(3)* %v18 to float addrspace(3)*
	%v134 = load float, float addrspace(3)* %v133, align 4
	%v135 = zext i1 %v22 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %v81, i32 %v135, float %v134)
	%v136 = sext i32 %v26 to i64
	%v137 = getelementptr inbounds float, float addrspace(1)* %colmax, i64 %v136
	%v138 = call float @llvm.maxnum.f32(float %v58, float %v64)
	%v139 = call float @llvm.maxnum.f32(float %v59, float %v65)
	%v140 = call float @llvm.maxnum.f32(float %v60, float %v66)
	%v141 = call float @llvm.maxnum.f32(float %v61, float %v67)
	%v142 = call float @llvm.maxnum.f32(float %v138, float %v70)
	%v143 = call float @llvm.maxnum.f32(float %v139, float %v71)
	%v144 = call float @llvm.maxnum.f32(float %v140, float %v72)
	%v145 = call float @llvm.maxnum.f32(float %v141, float %v73)
	%v146 = call float @llvm.maxnum.f32(float %v142, float %v76)
	%v147 = call float @llvm.maxnum.f32(float %v143, float %v77)
	%v148 = call float @llvm.maxnum.f32(float %v144, float %v78)
	%v149 = call float @llvm.maxnum.f32(float %v145, float %v79)
	%v150 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v146, i32 16, i32 31)
	%v151 = call float @llvm.maxnum.f32(float %v146, float %v150)
	%v152 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v147, i32 16, i32 31)
	%v153 = call float @llvm.maxnum.f32(float %v147, float %v152)
	%v154 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v148, i32 16, i32 31)
	%v155 = call float @llvm.maxnum.f32(float %v148, float %v154)
	%v156 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v149, i32 16, i32 31)
	%v157 = call float @llvm.maxnum.f32(float %v149, float %v156)
	%v158 = add i32 %v28, 1
	%v159 = add i32 %v28, 2
	%v160 = add i32 %v28, 3
	%v161 = and i32 %v2, 1
	%v162 = mul i32 %v161, 64
	%v163 = add i32 %v162, %v28
	%v164 = mul i32 %v163, 4
	%v165 = zext i32 %v164 to i64
	%v166 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v165
	%v167 = bitcast i8 addrspace(3)* %v166 to float addrspace(3)*
	store float %v151, float addrspace(3)* %v167, align 4
	%v168 = mul i32 %v161, 64
	%v169 = add i32 %v168, %v158
	%v170 = mul i32 %v169, 4
	%v171 = zext i32 %v170 to i64
	%v172 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v171
	%v173 = bitcast i8 addrspace(3)* %v172 to float addrspace(3)*
	store float %v153, float addrspace(3)* %v173, align 4
	%v174 = mul i32 %v161, 64
	%v175 = add i32 %v174, %v159
	%v176 = mul i32 %v175, 4
	%v177 = zext i32 %v176 to i64
	%v178 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v177
	%v179 = bitcast i8 addrspace(3)* %v178 to float addrspace(3)*
	store float %v155, float addrspace(3)* %v179, align 4
	%v180 = mul i32 %v161, 64
	%v181 = add i32 %v180, %v160
	%v182 = mul i32 %v181, 4
	%v183 = zext i32 %v182 to i64
	%v184 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v183
	%v185 = bitcast i8 addrspace(3)* %v184 to float addrspace(3)*
	store float %v157, float addrspace(3)* %v185, align 4
	call void @llvm.nvvm.barrier0()
	%v186 = mul i32 %v28, 4
	%v187 = zext i32 %v186 to i64
	%v188 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v187
	%v189 = bitcast i8 addrspace(3)* %v188 to float addrspace(3)*
	%v190 = load float, float addrspace(3)* %v189, align 4
	%v191 = add i32 64, %v28
	%v192 = mul i32 %v191, 4
	%v193 = zext i32 %v192 to i64
	%v194 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v193
	%v195 = bitcast i8 addrspace(3)* %v194 to float addrspace(3)*
	%v196 = load float, float addrspace(3)* %v195, align 4
	%v197 = call float @llvm.maxnum.f32(float %v190, float %v196)
	%v198 = mul i32 %v158, 4
	%v199 = zext i32 %v198 to i64
	%v200 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v199
	%v201 = bitcast i8 addrspace(3)* %v200 to float addrspace(3)*
	%v202 = load float, float addrspace(3)* %v201, align 4
	%v203 = add i32 64, %v158
	%v204 = mul i32 %v203, 4
	%v205 = zext i32 %v204 to i64
	%v206 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v205
	%v207 = bitcast i8 addrspace(3)* %v206 to float addrspace(3)*
	%v208 = load float, float addrspace(3)* %v207, align 4
	%v209 = call float @llvm.maxnum.f32(float %v202, float %v208)
	%v210 = mul i32 %v159, 4
	%v211 = zext i32 %v210 to i64
	%v212 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v211
	%v213 = bitcast i8 addrspace(3)* %v212 to float addrspace(3)*
	%v214 = load float, float addrspace(3)* %v213, align 4
	%v215 = add i32 64, %v159
	%v216 = mul i32 %v215, 4
	%v217 = zext i32 %v216 to i64
	%v218 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v217
	%v219 = bitcast i8 addrspace(3)* %v218 to float addrspace(3)*
	%v220 = load float, float addrspace(3)* %v219, align 4
	%v221 = call float @llvm.maxnum.f32(float %v214, float %v220)
	%v222 = mul i32 %v160, 4
	%v223 = zext i32 %v222 to i64
	%v224 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v223
	%v225 = bitcast i8 addrspace(3)* %v224 to float addrspace(3)*
	%v226 = load float, float addrspace(3)* %v225, align 4
	%v227 = add i32 64, %v160
	%v228 = mul i32 %v227, 4
	%v229 = zext i32 %v228 to i64
	%v230 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v229
	%v231 = bitcast i8 addrspace(3)* %v230 to float addrspace(3)*
	%v232 = load float, float addrspace(3)* %v231, align 4
	%v233 = call float @llvm.maxnum.f32(float %v226, float %v232)
	%v234 = insertelement <4 x float> undef, float %v197, i32 0
	%v235 = insertelement <4 x float> %v234, float %v209, i32 1
	%v236 = insertelement <4 x float> %v235, float %v221, i32 2
	%v237 = insertelement <4 x float> %v236, float %v233, i32 3
	%v238 = bitcast i8 addrspace(3)* %v32 to <4 x float> addrspace(3)*
	store <4 x float> %v237, <4 x float> addrspace(3)* %v238, align 16
	call void @llvm.nvvm.barrier0()
	%v239 = bitcast i8 addrspace(3)* %v36 to float addrspace(3)*
	%v240 = load float, float addrspace(3)* %v239, align 4
	%v241 = bitcast float addrspace(1)* %v137 to float addrspace(1)*
	store float %v240, float addrspace(1)* %v241, align 4
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare float @llvm.nvvm.shfl.sync.bfly.f32(i32 %p0, float %p1, i32 %p2, i32 %p3)

declare void @llvm.nvvm.barrier0()

declare float @llvm.maxnum.f32(float %p0, float %p1)

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*)* @reduce2d, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*)* @reduce2d, !"maxntidx", i32 64}
