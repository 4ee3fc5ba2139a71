target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define void @layer_norm(float addrspace(1)* %x, float addrspace(1)* %w, float addrspace(1)* %b, float addrspace(1)* %out, i32 %n_cols, float %eps) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%v1 = and i32 %v0, 31
	%v2 = lshr i32 %v0, 5
	%v3 = and i32 %v1, 31
	%v4 = shl i32 %v3, 2
	%v5 = and i32 %v2, 3
	%v6 = shl i32 %v5, 7
	%v7 = or i32 %v4, %v6
	%v8 = and i32 %v1, 31
	%v9 = and i32 %v2, 3
	%v10 = shl i32 %v9, 5
	%v11 = or i32 %v8, %v10
	%v12 = mul i32 %v7, 4
	%v13 = zext i32 %v12 to i64
	%v14 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v13
	%v15 = mul i32 %v11, 4
	%v16 = zext i32 %v15 to i64
	%v17 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v16
	%v18 = mul i32 %v7, 4
	%v19 = zext i32 %v18 to i64
	%v20 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v19
	%v21 = mul i32 %v11, 4
	%v22 = zext i32 %v21 to i64
	%v23 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v22
	br label %body

body:
	%v24 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v25 = add i32 %v7, 1
	%v26 = add i32 %v7, 2
	%v27 = add i32 %v7, 3
	%v28 = add i32 %v11, 128
	%v29 = add i32 %v11, 256
	%v30 = add i32 %v11, 384
	%v31 = icmp slt i32 %v7, %n_cols
	%v32 = icmp slt i32 %v25, %n_cols
	%v33 = icmp slt i32 %v26, %n_cols
	%v34 = icmp slt i32 %v27, %n_cols
	%v35 = icmp slt i32 %v11, %n_cols
	%v36 = icmp slt i32 %v28, %n_cols
	%v37 = icmp slt i32 %v29, %n_cols
	%v38 = icmp slt i32 %v30, %n_cols
	%v39 = mul i32 %v24, %n_cols
	%v40 = sext i32 %v39 to i64
	%v41 = getelementptr inbounds float, float addrspace(1)* %x, i64 %v40
	%v42 = sext i32 %v11 to i64
	%v43 = getelementptr inbounds float, float addrspace(1)* %v41, i64 %v42
	%v44 = sext i32 %v28 to i64
	%v45 = getelementptr inbounds float, float addrspace(1)* %v41, i64 %v44
	%v46 = sext i32 %v29 to i64
	%v47 = getelementptr inbounds float, float addrspace(1)* %v41, i64 %v46
	%v48 = sext i32 %v30 to i64
	%v49 = getelementptr inbounds float, float addrspace(1)* %v41, i64 %v48
	%v50 = zext i1 %v35 to i32
	%v51 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v43, i32 %v50, float 0.0)
	%v52 = zext i1 %v36 to i32
	%v53 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v45, i32 %v52, float 0.0)
	%v54 = zext i1 %v37 to i32
	%v55 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v47, i32 %v54, float 0.0)
	%v56 = zext i1 %v38 to i32
	%v57 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v49, i32 %v56, float 0.0)
	%v58 = fadd float %v51, %v53
	%v59 = fadd float %v58, %v55
	%v60 = fadd float %v59, %v57
	%v61 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v60, i32 1, i32 31)
	%v62 = fadd float %v60, %v61
	%v63 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v62, i32 2, i32 31)
	%v64 = fadd float %v62, %v63
	%v65 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v64, i32 4, i32 31)
	%v66 = fadd float %v64, %v65
	%v67 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v66, i32 8, i32 31)
	%v68 = fadd float %v66, %v67
	%v69 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v68, i32 16, i32 31)
	%v70 = fadd float %v68, %v69
	%v71 = and i32 %v2, 1
	%v72 = lshr i32 %v2, 1
	%v73 = and i32 %v72, 1
	%v74 = shl i32 %v73, 1
	%v75 = or i32 %v71, %v74
	%v76 = mul i32 %v75, 4
	%v77 = add i32 2048, %v76
	%v78 = zext i32 %v77 to i64
	%v79 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v78
	%v80 = bitcast i8 addrspace(3)* %v79 to float addrspace(3)*
	store float %v70, float addrspace(3)* %v80, align 4
	call void @llvm.nvvm.barrier0()
	%v81 = and i32 %v1, 3
	%v82 = mul i32 %v81, 4
	%v83 = add i32 2048, %v82
	%v84 = zext i32 %v83 to i64
	%v85 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v84
	%v86 = bitcast i8 addrspace(3)* %v85 to float addrspace(3)*
	%v87 = load float, float addrspace(3)* %v86, align 4
	%v88 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v87, i32 1, i32 31)
	%v89 = fadd float %v87, %v88
	%v90 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v89, i32 2, i32 31)
	%v91 = fadd float %v89, %v90
	%v92 = sitofp i32 %n_cols to float
	%v93 = call float asm "div.full.f32 $0, $1, $2;", "=f,f,f"(float %v91, float %v92)
	%v94 = fsub float %v51, %v93
	%v95 = fsub float %v53, %v93
	%v96 = fsub float %v55, %v93
	%v97 = fsub float %v57, %v93
	%v98 = select i1 %v35, float %v94, float 0.0
	%v99 = select i1 %v36, float %v95, float 0.0
	%v100 = select i1 %v37, float %v96, float 0.0
	%v101 = select i1 %v38, float %v97, float 0.0
	%v102 = fmul float %v98, %v98
	%v103 = fmul float %v99, %v99
	%v104 = fmul float %v100, %v100
	%v105 = fmul float %v101, %v101
	%v106 = fadd float %v102, %v103
	%v107 = fadd float %v106, %v104
	%v108 = fadd float %v107, %v105
	%v109 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v108, i32 1, i32 31)
	%v110 = fadd float %v108, %v109
	%v111 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v110, i32 2, i32 31)
	%v112 = fadd float %v110, %v111
	%v113 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v112, i32 4, i32 31)
	%v114 = fadd float %v112, %v113
	%v115 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v114, i32 8, i32 31)
	%v116 = fadd float %v114, %v115
	%v117 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v116, i32 16, i32 31)
	%v118 = fadd float %v116, %v117
	%v119 = and i32 %v2, 1
	%v120 = lshr i32 %v2, 1
	%v121 = and i32 %v120, 1
	%v122 = shl i32 %v121, 1
	%v123 = or i32 %v119, %v122
	%v124 = mul i32 %v123, 4
	%v125 = add i32 2176, %v124
	%v126 = zext i32 %v125 to i64
	%v127 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v126
	%v128 = bitcast i8 addrspace(3)* %v127 to float addrspace(3)*
	store float %v118, float addrspace(3)* %v128, align 4
	call void @llvm.nvvm.barrier0()
	%v129 = and i32 %v1, 3
	%v130 = mul i32 %v129, 4
	%v131 = add i32 2176, %v130
	%v132 = zext i32 %v131 to i64
	%v133 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v132
	%v134 = bitcast i8 addrspace(3)* %v133 to float addrspace(3)*
	%v135 = load float, float addrspace(3)* %v134, align 4
	%v136 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v135, i32 1, i32 31)
	%v137 = fadd float %v135, %v136
	%v138 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %v137, i32 2, i32 31)
	%v139 = fadd float %v137, %v138
	%v140 = call float asm "div.full.f32 $0, $1, $2;", "=f,f,f"(float %v139, float %v92)
	%v141 = fadd float %v140, %eps
	%v142 = call float @llvm.nvvm.rsqrt.approx.f(float %v141)
	%v143 = sext i32 %v7 to i64
	%v144 = getelementptr inbounds float, float addrspace(1)* %w, i64 %v143
	%v145 = sext i32 %v25 to i64
	%v146 = getelementptr inbounds float, float addrspace(1)* %w, i64 %v145
	%v147 = sext i32 %v26 to i64
	%v148 = getelementptr inbounds float, float addrspace(1)* %w, i64 %v147
	%v149 = sext i32 %v27 to i64
	%v150 = getelementptr inbounds float, float addrspace(1)* %w, i64 %v149
	%v151 = and i1 %v31, %v32
	%v152 = and i1 %v151, %v33
	%v153 = and i1 %v152, %v34
	%v154 = zext i1 %v153 to i32
	%v155 = call { float, float, float, float } asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $5, 0;\0A\09mov.f32 $0, $6;\0A\09mov.f32 $1, $7;\0A\09mov.f32 $2, $8;\0A\09mov.f32 $3, $9;\0A\09@%p ld.global.v4.f32 {$0, $1, $2, $3}, [$4];\0A}", "=f,=f,=f,=f,l,r,f,f,f,f"(float addrspace(1)* %v144, i32 %v154, float 0.0, float 0.0, float 0.0, float 0.0)
	%v156 = extractvalue { float, float, float, float } %v155, 0
	%v157 = extractvalue { float, float, float, float } %v155, 1
	%v158 = extractvalue { float, float, float, float } %v155, 2
	%v159 = extractvalue { float, float, float, float } %v155, 3
	%v160 = xor i1 %v153, true
	%v161 = and i1 %v31, %v160
	%v162 = zext i1 %v161 to i32
	%v163 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v144, i32 %v162, float 0.0)
	%v164 = select i1 %v153, float %v156, float %v163
	%v165 = and i1 %v32, %v160
	%v166 = zext i1 %v165 to i32
	%v167 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v146, i32 %v166, float 0.0)
	%v168 = select i1 %v153, float %v157, float %v167
	%v169 = and i1 %v33, %v160
	%v170 = zext i1 %v169 to i32
	%v171 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v148, i32 %v170, float 0.0)
	%v172 = select i1 %v153, float %v158, float %v171
	%v173 = and i1 %v34, %v160
	%v174 = zext i1 %v173 to i32
	%v175 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v150, i32 %v174, float 0.0)
	%v176 = select i1 %v153, float %v159, float %v175
	%v177 = insertelement <4 x float> undef, float %v164, i32 0
	%v178 = insertelement <4 x float> %v177, float %v168, i32 1
	%v179 = insertelement <4 x float> %v178, float %v172, i32 2
	%v180 = insertelement <4 x float> %v179, float %v176, i32 3
	%v181 = bitcast i8 addrspace(3)* %v14 to <4 x float> addrspace(3)*
	store <4 x float> %v180, <4 x float> addrspace(3)* %v181, align 16
	call void @llvm.nvvm.barrier0()
	%v182 = bitcast i8 addrspace(3)* %v17 to float addrspace(3)*
	%v183 = load float, float addrspace(3)* %v182, align 4
	%v184 = getelementptr inbounds i8, i8 addrspace(3)* %v17, i32 512
	%v185 = bitcast i8 addrspace(3)* %v184 to float addrspace(3)*
	%v186 = load float, float addrspace(3)* %v185, align 4
	%v187 = getelementptr inbounds i8, i8 addrspace(3)* %v17, i32 1024
	%v188 = bitcast i8 addrspace(3)* %v187 to float addrspace(3)*
	%v189 = load float, float addrspace(3)* %v188, align 4
	%v190 = getelementptr inbounds i8, i8 addrspace(3)* %v17, i32 1536
	%v191 = bitcast i8 addrspace(3)* %v190 to float addrspace(3)*
	%v192 = load float, float addrspace(3)* %v191, align 4
	%v193 = sext i32 %v7 to i64
	%v194 = getelementptr inbounds float, float addrspace(1)* %b, i64 %v193
	%v195 = sext i32 %v25 to i64
	%v196 = getelementptr inbounds float, float addrspace(1)* %b, i64 %v195
	%v197 = sext i32 %v26 to i64
	%v198 = getelementptr inbounds float, float addrspace(1)* %b, i64 %v197
	%v199 = sext i32 %v27 to i64
	%v200 = getelementptr inbounds float, float addrspace(1)* %b, i64 %v199
	%v201 = and i1 %v31, %v32
	%v202 = and i1 %v201, %v33
	%v203 = and i1 %v202, %v34
	%v204 = zext i1 %v203 to i32
	%v205 = call { float, float, float, float } asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $5, 0;\0A\09mov.f32 $0, $6;\0A\09mov.f32 $1, $7;\0A\09mov.f32 $2, $8;\0A\09mov.f32 $3, $9;\0A\09@%p ld.global.v4.f32 {$0, $1, $2, $3}, [$4];\0A}", "=f,=f,=f,=f,l,r,f,f,f,f"(float addrspace(1)* %v194, i32 %v204, float 0.0, float 0.0, float 0.0, float 0.0)
	%v206 = extractvalue { float, float, float, float } %v205, 0
	%v207 = extractvalue { float, float, float, float } %v205, 1
	%v208 = extractvalue { float, float, float, float } %v205, 2
	%v209 = extractvalue { float, float, float, float } %v205, 3
	%v210 = xor i1 %v203, true
	%v211 = and i1 %v31, %v210
	%v212 = zext i1 %v211 to i32
	%v213 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v194, i32 %v212, float 0.0)
	%v214 = select i1 %v203, float %v206, float %v213
	%v215 = and i1 %v32, %v210
	%v216 = zext i1 %v215 to i32
	%v217 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v196, i32 %v216, float 0.0)
	%v218 = select i1 %v203, float %v207, float %v217
	%v219 = and i1 %v33, %v210
	%v220 = zext i1 %v219 to i32
	%v221 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v198, i32 %v220, float 0.0)
	%v222 = select i1 %v203, float %v208, float %v221
	%v223 = and i1 %v34, %v210
	%v224 = zext i1 %v223 to i32
	%v225 = call float asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.f32 $0, $3;\0A\09@%p ld.global.f32 $0, [$1];\0A}", "=f,l,r,f"(float addrspace(1)* %v200, i32 %v224, float 0.0)
	%v226 = select i1 %v203, float %v209, float %v225
	call void @llvm.nvvm.barrier0()
	%v227 = insertelement <4 x float> undef, float %v214, i32 0
	%v228 = insertelement <4 x float> %v227, float %v218, i32 1
	%v229 = insertelement <4 x float> %v228, float %v222, i32 2
	%v230 = insertelement <4 x float> %v229, float %v226, i32 3
	%v231 = bitcast i8 addrspace(3)* %v20 to <4 x float> addrspace(3)*
	store <4 x float> %v230, <4 x float> addrspace(3)* %v231, align 16
	call void @llvm.nvvm.barrier0()
	%v232 = bitcast i8 addrspace(3)* %v23 to float addrspace(3)*
	%v233 = load float, float addrspace(3)* %v232, align 4
	%v234 = getelementptr inbounds i8, i8 addrspace(3)* %v23, i32 512
	%v235 = bitcast i8 addrspace(3)* %v234 to float addrspace(3)*
	%v236 = load float, float addrspace(3)* %v235, align 4
	%v237 = getelementptr inbounds i8, i8 addrspace(3)* %v23, i32 1024
	%v238 = bitcast i8 addrspace(3)* %v237 to float addrspace(3)*
	%v239 = load float, float addrspace(3)* %v238, align 4
	%v240 = getelementptr inbounds i8, i8 addrspace(3)* %v23, i32 1536
	%v241 = bitcast i8 addrspace(3)* %v240 to float addrspace(3)*
	%v242 = load float, float addrspace(3)* %v241, align 4
	%v243 = sext i32 %v39 to i64
	%v244 = getelementptr inbounds float, float addrspace(1)* %out, i64 %v243
	%v245 = sext i32 %v11 to i64
	%v246 = getelementptr inbounds float, float addrspace(1)* %v244, i64 %v245
	%v247 = sext i32 %v28 to i64
	%v248 = getelementptr inbounds float, float addrspace(1)* %v244, i64 %v247
	%v249 = sext i32 %v29 to i64
	%v250 = getelementptr inbounds float, float addrspace(1)* %v244, i64 %v249
	%v251 = sext i32 %v30 to i64
	%v252 = getelementptr inbounds float, float addrspace(1)* %v244, i64 %v251
	%v253 = fmul float %v98, %v142
	%v254 = fmul float %v99, %v142
	%v255 = fmul float %v100, %v142
	%v256 = fmul float %v101, %v142
	%v257 = fmul float %v253, %v183
	%v258 = fmul float %v254, %v186
	%v259 = fmul float %v255, %v189
	%v260 = fmul float %v256, %v192
	%v261 = fadd float %v257, %v233
	%v262 = fadd float %v258, %v236
	%v263 = fadd float %v259, %v239
	%v264 = fadd float %v260, %v242
	%v265 = zext i1 %v35 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %v246, i32 %v265, float %v261)
	%v266 = zext i1 %v36 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %v248, i32 %v266, float %v262)
	%v267 = zext i1 %v37 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %v250, i32 %v267, float %v263)
	%v268 = zext i1 %v38 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.f32 [$0], $2;\0A}", "l,r,f"(float addrspace(1)* %v252, i32 %v268, float %v264)
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare float @llvm.nvvm.shfl.sync.bfly.f32(i32 %p0, float %p1, i32 %p2, i32 %p3)

declare void @llvm.nvvm.barrier0()

declare float @llvm.nvvm.rsqrt.approx.f(float %p0)

!nvvm.annotations = !{!0, !1}

!0 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i32, float)* @layer_norm, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, float addrspace(1)*, i32, float)* @layer_norm, !"maxntidx", i32 128}
