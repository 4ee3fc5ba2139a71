target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define void @matmul(i16 addrspace(1)* %a, i16 addrspace(1)* %b, i16 addrspace(1)* %c, i32 %M, i32 %N, i32 %K, i32 %stride_am, i32 %stride_bk, i32 %stride_cm) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%v1 = and i32 %v0, 31
	%v2 = lshr i32 %v1, 1
	%v3 = and i32 %v2, 15
	%v4 = and i32 %v1, 3
	%v5 = shl i32 %v4, 3
	%v6 = lshr i32 %v1, 2
	%v7 = and i32 %v6, 7
	%v8 = and i32 %v1, 1
	%v9 = shl i32 %v8, 3
	%v10 = ptrtoint [0 x i8] addrspace(3)* @global_smem to i32
	%v11 = lshr i32 %v1, 1
	%v12 = and i32 %v11, 15
	%v13 = and i32 %v1, 1
	%v14 = shl i32 %v13, 3
	%v15 = lshr i32 %v12, 2
	%v16 = and i32 %v15, 1
	%v17 = lshr i32 %v14, 3
	%v18 = xor i32 %v17, %v16
	%v19 = shl i32 %v18, 3
	%v20 = and i32 %v14, 7
	%v21 = or i32 %v19, %v20
	%v22 = mul i32 %v12, 16
	%v23 = add i32 %v21, %v22
	%v24 = mul i32 %v23, 2
	%v25 = add i32 %v10, %v24
	%v26 = add i32 %v12, 16
	%v27 = lshr i32 %v26, 2
	%v28 = and i32 %v27, 1
	%v29 = lshr i32 %v14, 3
	%v30 = xor i32 %v29, %v28
	%v31 = shl i32 %v30, 3
	%v32 = and i32 %v14, 7
	%v33 = or i32 %v31, %v32
	%v34 = mul i32 %v26, 16
	%v35 = add i32 %v33, %v34
	%v36 = mul i32 %v35, 2
	%v37 = add i32 %v10, %v36
	%v38 = lshr i32 %v1, 2
	%v39 = and i32 %v38, 7
	%v40 = and i32 %v1, 3
	%v41 = shl i32 %v40, 3
	%v42 = lshr i32 %v39, 1
	%v43 = and i32 %v42, 3
	%v44 = lshr i32 %v41, 3
	%v45 = xor i32 %v44, %v43
	%v46 = shl i32 %v45, 3
	%v47 = and i32 %v41, 7
	%v48 = or i32 %v46, %v47
	%v49 = mul i32 %v39, 32
	%v50 = add i32 %v48, %v49
	%v51 = mul i32 %v50, 2
	%v52 = add i32 3072, %v51
	%v53 = add i32 %v10, %v52
	%v54 = add i32 %v39, 8
	%v55 = lshr i32 %v54, 1
	%v56 = and i32 %v55, 3
	%v57 = lshr i32 %v41, 3
	%v58 = xor i32 %v57, %v56
	%v59 = shl i32 %v58, 3
	%v60 = and i32 %v41, 7
	%v61 = or i32 %v59, %v60
	%v62 = mul i32 %v54, 32
	%v63 = add i32 %v61, %v62
	%v64 = mul i32 %v63, 2
	%v65 = add i32 3072, %v64
	%v66 = add i32 %v10, %v65
	%v67 = lshr i32 %v12, 2
	%v68 = and i32 %v67, 1
	%v69 = lshr i32 %v14, 3
	%v70 = xor i32 %v69, %v68
	%v71 = shl i32 %v70, 3
	%v72 = and i32 %v14, 7
	%v73 = or i32 %v71, %v72
	%v74 = mul i32 %v12, 16
	%v75 = add i32 %v73, %v74
	%v76 = mul i32 %v75, 2
	%v77 = add i32 1024, %v76
	%v78 = add i32 %v10, %v77
	%v79 = add i32 %v12, 16
	%v80 = lshr i32 %v79, 2
	%v81 = and i32 %v80, 1
	%v82 = lshr i32 %v14, 3
	%v83 = xor i32 %v82, %v81
	%v84 = shl i32 %v83, 3
	%v85 = and i32 %v14, 7
	%v86 = or i32 %v84, %v85
	%v87 = mul i32 %v79, 16
	%v88 = add i32 %v86, %v87
	%v89 = mul i32 %v88, 2
	%v90 = add i32 1024, %v89
	%v91 = add i32 %v10, %v90
	%v92 = lshr i32 %v39, 1
	%v93 = and i32 %v92, 3
	%v94 = lshr i32 %v41, 3
	%v95 = xor i32 %v94, %v93
	%v96 = shl i32 %v95, 3
	%v97 = and i32 %v41, 7
	%v98 = or i32 %v96, %v97
	%v99 = mul i32 %v39, 32
	%v100 = add i32 %v98, %v99
	%v101 = mul i32 %v100, 2
	%v102 = add i32 u0x1000, %v101
	%v103 = add i32 %v10, %v102
	%v104 = add i32 %v39, 8
	%v105 = lshr i32 %v104, 1
	%v106 = and i32 %v105, 3
	%v107 = lshr i32 %v41, 3
	%v108 = xor i32 %v107, %v106
	%v109 = shl i32 %v108, 3
	%v110 = and i32 %v41, 7
	%v111 = or i32 %v109, %v110
	%v112 = mul i32 %v104, 32
	%v113 = add i32 %v111, %v112
	%v114 = mul i32 %v113, 2
	%v115 = add i32 u0x1000, %v114
	%v116 = add i32 %v10, %v115
	%v117 = lshr i32 %v1, 4
	%v118 = and i32 %v1, 15
	%v119 = shl i32 %v117, 3
	%v120 = lshr i32 %v1, 4
	%v121 = mul i32 %v120, 8
	%v122 = and i32 %v1, 15
	%v123 = lshr i32 %v12, 2
	%v124 = and i32 %v123, 1
	%v125 = lshr i32 %v14, 3
	%v126 = xor i32 %v125, %v124
	%v127 = shl i32 %v126, 3
	%v128 = and i32 %v14, 7
	%v129 = or i32 %v127, %v128
	%v130 = mul i32 %v12, 16
	%v131 = add i32 %v129, %v130
	%v132 = mul i32 %v131, 2
	%v133 = add i32 %v10, %v132
	%v134 = add i32 %v12, 16
	%v135 = lshr i32 %v134, 2
	%v136 = and i32 %v135, 1
	%v137 = lshr i32 %v14, 3
	%v138 = xor i32 %v137, %v136
	%v139 = shl i32 %v138, 3
	%v140 = and i32 %v14, 7
	%v141 = or i32 %v139, %v140
	%v142 = mul i32 %v134, 16
	%v143 = add i32 %v141, %v142
	%v144 = mul i32 %v143, 2
	%v145 = add i32 %v10, %v144
	%v146 = lshr i32 %v39, 1
	%v147 = and i32 %v146, 3
	%v148 = lshr i32 %v41, 3
	%v149 = xor i32 %v148, %v147
	%v150 = shl i32 %v149, 3
	%v151 = and i32 %v41, 7
	%v152 = or i32 %v150, %v151
	%v153 = mul i32 %v39, 32
	%v154 = add i32 %v152, %v153
	%v155 = mul i32 %v154, 2
	%v156 = add i32 %v10, %v155
	%v157 = add i32 %v39, 8
	%v158 = lshr i32 %v157, 1
	%v159 = and i32 %v158, 3
	%v160 = lshr i32 %v41, 3
	%v161 = xor i32 %v160, %v159
	%v162 = shl i32 %v161, 3
	%v163 = and i32 %v41, 7
	%v164 = or i32 %v162, %v163
	%v165 = mul i32 %v157, 32
	%v166 = add i32 %v164, %v165
	%v167 = mul i32 %v166, 2
	%v168 = add i32 %v10, %v167
	%v169 = lshr i32 %v118, 2
	%v170 = and i32 %v169, 1
	%v171 = lshr i32 %v119, 3
	%v172 = xor i32 %v171, %v170
	%v173 = shl i32 %v172, 3
	%v174 = and i32 %v119, 7
	%v175 = or i32 %v173, %v174
	%v176 = mul i32 %v118, 16
	%v177 = add i32 %v175, %v176
	%v178 = mul i32 %v177, 2
	%v179 = add i32 %v10, %v178
	%v180 = lshr i32 %v122, 1
	%v181 = and i32 %v180, 3
	%v182 = lshr i32 %v121, 3
	%v183 = xor i32 %v182, %v181
	%v184 = shl i32 %v183, 3
	%v185 = and i32 %v121, 7
	%v186 = or i32 %v184, %v185
	%v187 = mul i32 %v122, 32
	%v188 = add i32 %v186, %v187
	%v189 = mul i32 %v188, 2
	%v190 = add i32 %v10, %v189
	%v191 = add i32 %v121, 16
	%v192 = lshr i32 %v122, 1
	%v193 = and i32 %v192, 3
	%v194 = lshr i32 %v191, 3
	%v195 = xor i32 %v194, %v193
	%v196 = shl i32 %v195, 3
	%v197 = and i32 %v191, 7
	%v198 = or i32 %v196, %v197
	%v199 = mul i32 %v122, 32
	%v200 = add i32 %v198, %v199
	%v201 = mul i32 %v200, 2
	%v202 = add i32 %v10, %v201
	%v203 = add i32 %v118, 16
	%v204 = lshr i32 %v203, 2
	%v205 = and i32 %v204, 1
	%v206 = lshr i32 %v119, 3
	%v207 = xor i32 %v206, %v205
	%v208 = shl i32 %v207, 3
	%v209 = and i32 %v119, 7
	%v210 = or i32 %v208, %v209
	%v211 = mul i32 %v203, 16
	%v212 = add i32 %v210, %v211
	%v213 = mul i32 %v212, 2
	%v214 = add i32 %v10, %v213
	%v215 = lshr i32 %v1, 2
	%v216 = and i32 %v215, 7
	%v217 = and i32 %v1, 3
	%v218 = shl i32 %v217, 1
	%v219 = mul i32 %v216, 40
	%v220 = add i32 %v219, %v218
	%v221 = mul i32 %v220, 2
	%v222 = zext i32 %v221 to i64
	%v223 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v222
	%v224 = lshr i32 %v1, 2
	%v225 = and i32 %v224, 7
	%v226 = and i32 %v1, 3
	%v227 = shl i32 %v226, 3
	%v228 = mul i32 %v225, 40
	%v229 = add i32 %v228, %v227
	%v230 = mul i32 %v229, 2
	%v231 = zext i32 %v230 to i64
	%v232 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v231
	%v233 = lshr i32 %v1, 2
	%v234 = and i32 %v233, 7
	br label %body

body:
	%v235 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v236 = add i32 %M, 31
	%v237 = sdiv i32 %v236, 32
	%v238 = add i32 %N, 31
	%v239 = sdiv i32 %v238, 32
	%v240 = sdiv i32 %v235, %v239
	%v241 = sub i32 %v237, %v240
	%v242 = icmp slt i32 %v241, 1
	%v243 = select i1 %v242, i32 %v241, i32 1
	%v244 = srem i32 %v235, %v243
	%v245 = add i32 %v240, %v244
	%v246 = srem i32 %v235, %v239
	%v247 = sdiv i32 %v246, %v243
	%v248 = mul i32 %v245, 32
	%v249 = add i32 %v3, 16
	%v250 = add i32 %v248, %v3
	%v251 = add i32 %v248, %v249
	%v252 = srem i32 %v250, %M
	%v253 = srem i32 %v251, %M
	%v254 = mul i32 %v247, 32
	%v255 = add i32 %v254, %v5
	%v256 = srem i32 %v255, %N
	%v257 = add i32 %v7, 8
	%v258 = mul i32 %v252, %stride_am
	%v259 = mul i32 %v253, %stride_am
	%v260 = add i32 %v258, %v9
	%v261 = add i32 %v259, %v9
	%v262 = sext i32 %v260 to i64
	%v263 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v262
	%v264 = sext i32 %v261 to i64
	%v265 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v264
	%v266 = mul i32 %v7, %stride_bk
	%v267 = mul i32 %v257, %stride_bk
	%v268 = add i32 %v266, %v256
	%v269 = add i32 %v267, %v256
	%v270 = sext i32 %v268 to i64
	%v271 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v270
	%v272 = sext i32 %v269 to i64
	%v273 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v272
	%v274 = mul i32 16, %stride_bk
	%v275 = add i32 %K, 15
	%v276 = sdiv i32 %v275, 16
	%v277 = icmp slt i32 0, %v276
	%v278 = icmp slt i32 %v9, %K
	%v279 = icmp slt i32 %v9, %K
	%v280 = and i1 %v278, %v277
	%v281 = and i1 %v279, %v277
	%v282 = select i1 %v280, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v25, i16 addrspace(1)* %v263, i32 %v282)
	%v283 = select i1 %v281, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v37, i16 addrspace(1)* %v265, i32 %v283)
	%v284 = getelementptr inbounds i16, i16 addrspace(1)* %v263, i64 16
	%v285 = getelementptr inbounds i16, i16 addrspace(1)* %v265, i64 16
	%v286 = icmp slt i32 0, %v276
	%v287 = icmp slt i32 %v7, %K
	%v288 = icmp slt i32 %v257, %K
	%v289 = and i1 %v287, %v286
	%v290 = and i1 %v288, %v286
	%v291 = select i1 %v289, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v53, i16 addrspace(1)* %v271, i32 %v291)
	%v292 = select i1 %v290, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v66, i16 addrspace(1)* %v273, i32 %v292)
	%v293 = sext i32 %v274 to i64
	%v294 = getelementptr inbounds i16, i16 addrspace(1)* %v271, i64 %v293
	%v295 = sext i32 %v274 to i64
	%v296 = getelementptr inbounds i16, i16 addrspace(1)* %v273, i64 %v295
	call void asm sideeffect "cp.async.commit_group;", "~{memory}"()
	%v297 = icmp slt i32 1, %v276
	%v298 = sub i32 %K, 16
	%v299 = icmp slt i32 %v9, %v298
	%v300 = icmp slt i32 %v9, %v298
	%v301 = and i1 %v299, %v297
	%v302 = and i1 %v300, %v297
	%v303 = select i1 %v301, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v78, i16 addrspace(1)* %v284, i32 %v303)
	%v304 = select i1 %v302, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v91, i16 addrspace(1)* %v285, i32 %v304)
	%v305 = getelementptr inbounds i16, i16 addrspace(1)* %v284, i64 16
	%v306 = getelementptr inbounds i16, i16 addrspace(1)* %v285, i64 16
	%v307 = icmp slt i32 1, %v276
	%v308 = sub i32 %K, 16
	%v309 = icmp slt i32 %v7, %v308
	%v310 = icmp slt i32 %v257, %v308
	%v311 = and i1 %v309, %v307
	%v312 = and i1 %v310, %v307
	%v313 = select i1 %v311, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v103, i16 addrspace(1)* %v294, i32 %v313)
	%v314 = select i1 %v312, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v116, i16 addrspace(1)* %v296, i32 %v314)
	%v315 = sext i32 %v274 to i64
	%v316 = getelementptr inbounds i16, i16 addrspace(1)* %v294, i64 %v315
	%v317 = sext i32 %v274 to i64
	%v318 = getelementptr inbounds i16, i16 addrspace(1)* %v296, i64 %v317
	call void asm sideeffect "cp.async.commit_group;", "~{memory}"()
	br label %bb1

bb1:
	%v319 = phi i32 [ 0, %body ], [ %v463, %bb2 ]
	%v320 = phi float [ 0.0, %body ], [ %v403, %bb2 ]
	%v321 = phi float [ 0.0, %body ], [ %v404, %bb2 ]
	%v322 = phi float [ 0.0, %body ], [ %v405, %bb2 ]
	%v323 = phi float [ 0.0, %body ], [ %v406, %bb2 ]
	%v324 = phi float [ 0.0, %body ], [ %v408, %bb2 ]
	%v325 = phi float [ 0.0, %body ], [ %v409, %bb2 ]
	%v326 = phi float [ 0.0, %body ], [ %v410, %bb2 ]
	%v327 = phi float [ 0.0, %body ], [ %v411, %bb2 ]
	%v328 = phi float [ 0.0, %body ], [ %v419, %bb2 ]
	%v329 = phi float [ 0.0, %body ], [ %v420, %bb2 ]
	%v330 = phi float [ 0.0, %body ], [ %v421, %bb2 ]
	%v331 = phi float [ 0.0, %body ], [ %v422, %bb2 ]
	%v332 = phi float [ 0.0, %body ], [ %v424, %bb2 ]
	%v333 = phi float [ 0.0, %body ], [ %v425, %bb2 ]
	%v334 = phi float [ 0.0, %body ], [ %v426, %bb2 ]
	%v335 = phi float [ 0.0, %body ], [ %v427, %bb2 ]
	%v336 = phi float [ 0.0, %body ], [ %v435, %bb2 ]
	%v337 = phi float [ 0.0, %body ], [ %v436, %bb2 ]
	%v338 = phi float [ 0.0, %body ], [ %v437, %bb2 ]
	%v339 = phi float [ 0.0, %body ], [ %v438, %bb2 ]
	%v340 = phi float [ 0.0, %body ], [ %v440, %bb2 ]
	%v341 = phi float [ 0.0, %body ], [ %v441, %bb2 ]
	%v342 = phi float [ 0.0, %body ], [ %v442, %bb2 ]
	%v343 = phi float [ 0.0, %body ], [ %v443, %bb2 ]
	%v344 = phi float [ 0.0, %body ], [ %v445, %bb2 ]
	%v345 = phi float [ 0.0, %body ], [ %v446, %bb2 ]
	%v346 = phi float [ 0.0, %body ], [ %v447, %bb2 ]
	%v347 = phi float [ 0.0, %body ], [ %v448, %bb2 ]
	%v348 = phi float [ 0.0, %body ], [ %v450, %bb2 ]
	%v349 = phi float [ 0.0, %body ], [ %v451, %bb2 ]
	%v350 = phi float [ 0.0, %body ], [ %v452, %bb2 ]
	%v351 = phi float [ 0.0, %body ], [ %v453, %bb2 ]
	%v352 = phi i16 addrspace(1)* [ %v305, %body ], [ %v454, %bb2 ]
	%v353 = phi i16 addrspace(1)* [ %v306, %body ], [ %v455, %bb2 ]
	%v354 = phi i16 addrspace(1)* [ %v316, %body ], [ %v457, %bb2 ]
	%v355 = phi i16 addrspace(1)* [ %v318, %body ], [ %v459, %bb2 ]
	%v356 = phi i32 [ 0, %body ], [ %v462, %bb2 ]
	%v357 = icmp slt i32 %v319, %v276
	br i1 %v357, label %bb2, label %bb3

bb2:
	call void asm sideeffect "cp.async.wait_group 1;", "~{memory}"()
	%v358 = mul i32 %v356, 1024
	%v359 = mul i32 %v356, 1024
	%v360 = add i32 3072, %v359
	call void @llvm.nvvm.barrier0()
	%v361 = icmp eq i32 %v356, 0
	%v362 = sub i32 %v356, 1
	%v363 = select i1 %v361, i32 2, i32 %v362
	%v364 = add i32 %v319, 2
	%v365 = mul i32 %v363, 1024
	%v366 = icmp slt i32 %v364, %v276
	%v367 = mul i32 %v364, 16
	%v368 = sub i32 %K, %v367
	%v369 = icmp slt i32 %v9, %v368
	%v370 = icmp slt i32 %v9, %v368
	%v371 = and i1 %v369, %v366
	%v372 = and i1 %v370, %v366
	%v373 = add i32 %v133, %v365
	%v374 = select i1 %v371, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v373, i16 addrspace(1)* %v352, i32 %v374)
	%v375 = add i32 %v145, %v365
	%v376 = select i1 %v372, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v375, i16 addrspace(1)* %v353, i32 %v376)
	%v377 = mul i32 %v363, 1024
	%v378 = add i32 3072, %v377
	%v379 = icmp slt i32 %v364, %v276
	%v380 = mul i32 %v364, 16
	%v381 = sub i32 %K, %v380
	%v382 = icmp slt i32 %v7, %v381
	%v383 = icmp slt i32 %v257, %v381
	%v384 = and i1 %v382, %v379
	%v385 = and i1 %v383, %v379
	%v386 = add i32 %v156, %v378
	%v387 = select i1 %v384, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v386, i16 addrspace(1)* %v354, i32 %v387)
	%v388 = add i32 %v168, %v378
	%v389 = select i1 %v385, i32 16, i32 0
	call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r,~{memory}"(i32 %v388, i16 addrspace(1)* %v355, i32 %v389)
	call void asm sideeffect "cp.async.commit_group;", "~{memory}"()
	%v390 = add i32 %v179, %v358
	%v391 = call { i32, i32, i32, i32 } asm sideeffect "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r,~{memory}"(i32 %v390)
	%v392 = extractvalue { i32, i32, i32, i32 } %v391, 0
	%v393 = extractvalue { i32, i32, i32, i32 } %v391, 1
	%v394 = extractvalue { i32, i32, i32, i32 } %v391, 2
	%v395 = extractvalue { i32, i32, i32, i32 } %v391, 3
	%v396 = add i32 %v190, %v360
	%v397 = call { i32, i32, i32, i32 } asm sideeffect "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r,~{memory}"(i32 %v396)
	%v398 = extractvalue { i32, i32, i32, i32 } %v397, 0
	%v399 = extractvalue { i32, i32, i32, i32 } %v397, 1
	%v400 = extractvalue { i32, i32, i32, i32 } %v397, 2
	%v401 = extractvalue { i32, i32, i32, i32 } %v397, 3
	%v402 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v392, i32 %v393, i32 %v394, i32 %v395, i32 %v398, i32 %v399, float %v320, float %v321, float %v322, float %v323)
	%v403 = extractvalue { float, float, float, float } %v402, 0
	%v404 = extractvalue { float, float, float, float } %v402, 1
	%v405 = extractvalue { float, float, float, float } %v402, 2
	%v406 = extractvalue { float, float, float, float } %v402, 3
	%v407 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v392, i32 %v393, i32 %v394, i32 %v395, i32 %v400, i32 %v401, float %v324, float %v325, float %v326, float %v327)
	%v408 = extractvalue { float, float, float, float } %v407, 0
	%v409 = extractvalue { float, float, float, float } %v407, 1
	%v410 = extractvalue { float, float, float, float } %v407, 2
	%v411 = extractvalue { float, float, float, float } %v407, 3
	%v412 = add i32 %v202, %v360
	%v413 = call { i32, i32, i32, i32 } asm sideeffect "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r,~{memory}"(i32 %v412)
	%v414 = extractvalue { i32, i32, i32, i32 } %v413, 0
	%v415 = extractvalue { i32, i32, i32, i32 } %v413, 1
	%v416 = extractvalue { i32, i32, i32, i32 } %v413, 2
	%v417 = extractvalue { i32, i32, i32, i32 } %v413, 3
	%v418 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v392, i32 %v393, i32 %v394, i32 %v395, i32 %v414, i32 %v415, float %v328, float %v329, float %v330, float %v331)
	%v419 = extractvalue { float, float, float, float } %v418, 0
	%v420 = extractvalue { float, float, float, float } %v418, 1
	%v421 = extractvalue { float, float, float, float } %v418, 2
	%v422 = extractvalue { float, float, float, float } %v418, 3
	%v423 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v392, i32 %v393, i32 %v394, i32 %v395, i32 %v416, i32 %v417, float %v332, float %v333, float %v334, float %v335)
	%v424 = extractvalue { float, float, float, float } %v423, 0
	%v425 = extractvalue { float, float, float, float } %v423, 1
	%v426 = extractvalue { float, float, float, float } %v423, 2
	%v427 = extractvalue { float, float, float, float } %v423, 3
	%v428 = add i32 %v214, %v358
	%v429 = call { i32, i32, i32, i32 } asm sideeffect "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r,~{memory}"(i32 %v428)
	%v430 = extractvalue { i32, i32, i32, i32 } %v429, 0
	%v431 = extractvalue { i32, i32, i32, i32 } %v429, 1
	%v432 = extractvalue { i32, i32, i32, i32 } %v429, 2
	%v433 = extractvalue { i32, i32, i32, i32 } %v429, 3
	%v434 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v430, i32 %v431, i32 %v432, i32 %v433, i32 %v398, i32 %v399, float %v336, float %v337, float %v338, float %v339)
	%v435 = extractvalue { float, float, float, float } %v434, 0
	%v436 = extractvalue { float, float, float, float } %v434, 1
	%v437 = extractvalue { float, float, float, float } %v434, 2
	%v438 = extractvalue { float, float, float, float } %v434, 3
	%v439 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v430, i32 %v431, i32 %v432, i32 %v433, i32 %v400, i32 %v401, float %v340, float %v341, float %v342, float %v343)
	%v440 = extractvalue { float, float, float, float } %v439, 0
	%v441 = extractvalue { float, float, float, float } %v439, 1
	%v442 = extractvalue { float, float, float, float } %v439, 2
	%v443 = extractvalue { float, float, float, float } %v439, 3
	%v444 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v430, i32 %v431, i32 %v432, i32 %v433, i32 %v414, i32 %v415, float %v344, float %v345, float %v346, float %v347)
	%v445 = extractvalue { float, float, float, float } %v444, 0
	%v446 = extractvalue { float, float, float, float } %v444, 1
	%v447 = extractvalue { float, float, float, float } %v444, 2
	%v448 = extractvalue { float, float, float, float } %v444, 3
	%v449 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v430, i32 %v431, i32 %v432, i32 %v433, i32 %v416, i32 %v417, float %v348, float %v349, float %v350, float %v351)
	%v450 = extractvalue { float, float, float, float } %v449, 0
	%v451 = extractvalue { float, float, float, float } %v449, 1
	%v452 = extractvalue { float, float, float, float } %v449, 2
	%v453 = extractvalue { float, float, float, float } %v449, 3
	%v454 = getelementptr inbounds i16, i16 addrspace(1)* %v352, i64 16
	%v455 = getelementptr inbounds i16, i16 addrspace(1)* %v353, i64 16
	%v456 = sext i32 %v274 to i64
	%v457 = getelementptr inbounds i16, i16 addrspace(1)* %v354, i64 %v456
	%v458 = sext i32 %v274 to i64
	%v459 = getelementptr inbounds i16, i16 addrspace(1)* %v355, i64 %v458
	%v460 = add i32 %v356, 1
	%v461 = icmp eq i32 %v460, 3
	%v462 = select i1 %v461, i32 0, i32 %v460
	%v463 = add i32 %v319, 1
	br label %bb1

bb3:
	call void asm sideeffect "cp.async.wait_group 0;", "~{memory}"()
	call void @llvm.nvvm.barrier0()
	%v464 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v321, float %v320)
	%v465 = bitcast i8 addrspace(3)* %v223 to i32 addrspace(3)*
	store i32 %v464, i32 addrspace(3)* %v465, align 4
	%v466 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 640
	%v467 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v323, float %v322)
	%v468 = bitcast i8 addrspace(3)* %v466 to i32 addrspace(3)*
	store i32 %v467, i32 addrspace(3)* %v468, align 4
	%v469 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 16
	%v470 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v325, float %v324)
	%v471 = bitcast i8 addrspace(3)* %v469 to i32 addrspace(3)*
	store i32 %v470, i32 addrspace(3)* %v471, align 4
	%v472 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 656
	%v473 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v327, float %v326)
	%v474 = bitcast i8 addrspace(3)* %v472 to i32 addrspace(3)*
	store i32 %v473, i32 addrspace(3)* %v474, align 4
	%v475 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 32
	%v476 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v329, float %v328)
	%v477 = bitcast i8 addrspace(3)* %v475 to i32 addrspace(3)*
	store i32 %v476, i32 addrspace(3)* %v477, align 4
	%v478 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 672
	%v479 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v331, float %v330)
	%v480 = bitcast i8 addrspace(3)* %v478 to i32 addrspace(3)*
	store i32 %v479, i32 addrspace(3)* %v480, align 4
	%v481 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 48
	%v482 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v333, float %v332)
	%v483 = bitcast i8 addrspace(3)* %v481 to i32 addrspace(3)*
	store i32 %v482, i32 addrspace(3)* %v483, align 4
	%v484 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 688
	%v485 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v335, float %v334)
	%v486 = bitcast i8 addrspace(3)* %v484 to i32 addrspace(3)*
	store i32 %v485, i32 addrspace(3)* %v486, align 4
	%v487 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 1280
	%v488 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v337, float %v336)
	%v489 = bitcast i8 addrspace(3)* %v487 to i32 addrspace(3)*
	store i32 %v488, i32 addrspace(3)* %v489, align 4
	%v490 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 1920
	%v491 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v339, float %v338)
	%v492 = bitcast i8 addrspace(3)* %v490 to i32 addrspace(3)*
	store i32 %v491, i32 addrspace(3)* %v492, align 4
	%v493 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 1296
	%v494 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v341, float %v340)
	%v495 = bitcast i8 addrspace(3)* %v493 to i32 addrspace(3)*
	store i32 %v494, i32 addrspace(3)* %v495, align 4
	%v496 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 1936
	%v497 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v343, float %v342)
	%v498 = bitcast i8 addrspace(3)* %v496 to i32 addrspace(3)*
	store i32 %v497, i32 addrspace(3)* %v498, align 4
	%v499 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 1312
	%v500 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v345, float %v344)
	%v501 = bitcast i8 addrspace(3)* %v499 to i32 addrspace(3)*
	store i32 %v500, i32 addrspace(3)* %v501, align 4
	%v502 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 1952
	%v503 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v347, float %v346)
	%v504 = bitcast i8 addrspace(3)* %v502 to i32 addrspace(3)*
	store i32 %v503, i32 addrspace(3)* %v504, align 4
	%v505 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 1328
	%v506 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v349, float %v348)
	%v507 = bitcast i8 addrspace(3)* %v505 to i32 addrspace(3)*
	store i32 %v506, i32 addrspace(3)* %v507, align 4
	%v508 = getelementptr inbounds i8, i8 addrspace(3)* %v223, i32 1968
	%v509 = call i32 asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f"(float %v351, float %v350)
	%v510 = bitcast i8 addrspace(3)* %v508 to i32 addrspace(3)*
	store i32 %v509, i32 addrspace(3)* %v510, align 4
	call void @llvm.nvvm.barrier0()
	%v511 = bitcast i8 addrspace(3)* %v232 to <4 x i32> addrspace(3)*
	%v512 = load <4 x i32>, <4 x i32> addrspace(3)* %v511, align 16
	%v513 = extractelement <4 x i32> %v512, i32 0
	%v514 = extractelement <4 x i32> %v512, i32 1
	%v515 = extractelement <4 x i32> %v512, i32 2
	%v516 = extractelement <4 x i32> %v512, i32 3
	%v517 = trunc i32 %v513 to i16
	%v518 = lshr i32 %v513, 16
	%v519 = trunc i32 %v518 to i16
	%v520 = trunc i32 %v514 to i16
	%v521 = lshr i32 %v514, 16
	%v522 = trunc i32 %v521 to i16
	%v523 = trunc i32 %v515 to i16
	%v524 = lshr i32 %v515, 16
	%v525 = trunc i32 %v524 to i16
	%v526 = trunc i32 %v516 to i16
	%v527 = lshr i32 %v516, 16
	%v528 = trunc i32 %v527 to i16
	%v529 = getelementptr inbounds i8, i8 addrspace(3)* %v232, i32 640
	%v530 = bitcast i8 addrspace(3)* %v529 to <4 x i32> addrspace(3)*
	%v531 = load <4 x i32>, <4 x i32> addrspace(3)* %v530, align 16
	%v532 = extractelement <4 x i32> %v531, i32 0
	%v533 = extractelement <4 x i32> %v531, i32 1
	%v534 = extractelement <4 x i32> %v531, i32 2
	%v535 = extractelement <4 x i32> %v531, i32 3
	%v536 = trunc i32 %v532 to i16
	%v537 = lshr i32 %v532, 16
	%v538 = trunc i32 %v537 to i16
	%v539 = trunc i32 %v533 to i16
	%v540 = lshr i32 %v533, 16
	%v541 = trunc i32 %v540 to i16
	%v542 = trunc i32 %v534 to i16
	%v543 = lshr i32 %v534, 16
	%v544 = trunc i32 %v543 to i16
	%v545 = trunc i32 %v535 to i16
	%v546 = lshr i32 %v535, 16
	%v547 = trunc i32 %v546 to i16
	%v548 = getelementptr inbounds i8, i8 addrspace(3)* %v232, i32 1280
	%v549 = bitcast i8 addrspace(3)* %v548 to <4 x i32> addrspace(3)*
	%v550 = load <4 x i32>, <4 x i32> addrspace(3)* %v549, align 16
	%v551 = extractelement <4 x i32> %v550, i32 0
	%v552 = extractelement <4 x i32> %v550, i32 1
	%v553 = extractelement <4 x i32> %v550, i32 2
	%v554 = extractelement <4 x i32> %v550, i32 3
	%v555 = trunc i32 %v551 to i16
	%v556 = lshr i32 %v551, 16
	%v557 = trunc i32 %v556 to i16
	%v558 = trunc i32 %v552 to i16
	%v559 = lshr i32 %v552, 16
	%v560 = trunc i32 %v559 to i16
	%v561 = trunc i32 %v553 to i16
	%v562 = lshr i32 %v553, 16
	%v563 = trunc i32 %v562 to i16
	%v564 = trunc i32 %v554 to i16
	%v565 = lshr i32 %v554, 16
	%v566 = trunc i32 %v565 to i16
	%v567 = getelementptr inbounds i8, i8 addrspace(3)* %v232, i32 1920
	%v568 = bitcast i8 addrspace(3)* %v567 to <4 x i32> addrspace(3)*
	%v569 = load <4 x i32>, <4 x i32> addrspace(3)* %v568, align 16
	%v570 = extractelement <4 x i32> %v569, i32 0
	%v571 = extractelement <4 x i32> %v569, i32 1
	%v572 = extractelement <4 x i32> %v569, i32 2
	%v573 = extractelement <4 x i32> %v569, i32 3
	%v574 = trunc i32 %v570 to i16
	%v575 = lshr i32 %v570, 16
	%v576 = trunc i32 %v575 to i16
	%v577 = trunc i32 %v571 to i16
	%v578 = lshr i32 %v571, 16
	%v579 = trunc i32 %v578 to i16
	%v580 = trunc i32 %v572 to i16
	%v581 = lshr i32 %v572, 16
	%v582 = trunc i32 %v581 to i16
	%v583 = trunc i32 %v573 to i16
	%v584 = lshr i32 %v573, 16
	%v585 = trunc i32 %v584 to i16
	%v586 = mul i32 %v245, 32
	%v587 = add i32 %v234, 8
	%v588 = add i32 %v234, 16
	%v589 = add i32 %v234, 24
	%v590 = add i32 %v586, %v234
	%v591 = add i32 %v586, %v587
	%v592 = add i32 %v586, %v588
	%v593 = add i32 %v586, %v589
	%v594 = mul i32 %v247, 32
	%v595 = add i32 %v594, %v5
	%v596 = mul i32 %v590, %stride_cm
	%v597 = mul i32 %v591, %stride_cm
	%v598 = mul i32 %v592, %stride_cm
	%v599 = mul i32 %v593, %stride_cm
	%v600 = add i32 %v596, %v595
	%v601 = add i32 %v597, %v595
	%v602 = add i32 %v598, %v595
	%v603 = add i32 %v599, %v595
	%v604 = sext i32 %v600 to i64
	%v605 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v604
	%v606 = sext i32 %v601 to i64
	%v607 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v606
	%v608 = sext i32 %v602 to i64
	%v609 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v608
	%v610 = sext i32 %v603 to i64
	%v611 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v610
	%v612 = icmp slt i32 %v590, %M
	%v613 = icmp slt i32 %v591, %M
	%v614 = icmp slt i32 %v592, %M
	%v615 = icmp slt i32 %v593, %M
	%v616 = icmp slt i32 %v595, %N
	%v617 = and i1 %v612, %v616
	%v618 = and i1 %v613, %v616
	%v619 = and i1 %v614, %v616
	%v620 = and i1 %v615, %v616
	%v621 = zext i16 %v517 to i32
	%v622 = zext i16 %v519 to i32
	%v623 = shl i32 %v622, 16
	%v624 = or i32 %v621, %v623
	%v625 = zext i16 %v520 to i32
	%v626 = zext i16 %v522 to i32
	%v627 = shl i32 %v626, 16
	%v628 = or i32 %v625, %v627
	%v629 = zext i16 %v523 to i32
	%v630 = zext i16 %v525 to i32
	%v631 = shl i32 %v630, 16
	%v632 = or i32 %v629, %v631
	%v633 = zext i16 %v526 to i32
	%v634 = zext i16 %v528 to i32
	%v635 = shl i32 %v634, 16
	%v636 = or i32 %v633, %v635
	%v637 = zext i1 %v617 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.v4.b32 [$0], {$2, $3, $4, $5};\0A}", "l,r,r,r,r,r"(i16 addrspace(1)* %v605, i32 %v637, i32 %v624, i32 %v628, i32 %v632, i32 %v636)
	%v638 = zext i16 %v536 to i32
	%v639 = zext i16 %v538 to i32
	%v640 = shl i32 %v639, 16
	%v641 = or i32 %v638, %v640
	%v642 = zext i16 %v539 to i32
	%v643 = zext i16 %v541 to i32
	%v644 = shl i32 %v643, 16
	%v645 = or i32 %v642, %v644
	%v646 = zext i16 %v542 to i32
	%v647 = zext i16 %v544 to i32
	%v648 = shl i32 %v647, 16
	%v649 = or i32 %v646, %v648
	%v650 = zext i16 %v545 to i32
	%v651 = zext i16 %v547 to i32
	%v652 = shl i32 %v651, 16
	%v653 = or i32 %v650, %v652
	%v654 = zext i1 %v618 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.v4.b32 [$0], {$2, $3, $4, $5};\0A}", "l,r,r,r,r,r"(i16 addrspace(1)* %v607, i32 %v654, i32 %v641, i32 %v645, i32 %v649, i32 %v653)
	%v655 = zext i16 %v555 to i32
	%v656 = zext i16 %v557 to i32
	%v657 = shl i32 %v656, 16
	%v658 = or i32 %v655, %v657
	%v659 = zext i16 %v558 to i32
	%v660 = zext i16 %v560 to i32
	%v661 = shl i32 %v660, 16
	%v662 = or i32 %v659, %v661
	%v663 = zext i16 %v561 to i32
	%v664 = zext i16 %v563 to i32
	%v665 = shl i32 %v664, 16
	%v666 = or i32 %v663, %v665
	%v667 = zext i16 %v564 to i32
	%v668 = zext i16 %v566 to i32
	%v669 = shl i32 %v668, 16
	%v670 = or i32 %v667, %v669
	%v671 = zext i1 %v619 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.v4.b32 [$0], {$2, $3, $4, $5};\0A}", "l,r,r,r,r,r"(i16 addrspace(1)* %v609, i32 %v671, i32 %v658, i32 %v662, i32 %v666, i32 %v670)
	%v672 = zext i16 %v574 to i32
	%v673 = zext i16 %v576 to i32
	%v674 = shl i32 %v673, 16
	%v675 = or i32 %v672, %v674
	%v676 = zext i16 %v577 to i32
	%v677 = zext i16 %v579 to i32
	%v678 = shl i32 %v677, 16
	%v679 = or i32 %v676, %v678
	%v680 = zext i16 %v580 to i32
	%v681 = zext i16 %v582 to i32
	%v682 = shl i32 %v681, 16
	%v683 = or i32 %v680, %v682
	%v684 = zext i16 %v583 to i32
	%v685 = zext i16 %v585 to i32
	%v686 = shl i32 %v685, 16
	%v687 = or i32 %v684, %v686
	%v688 = zext i1 %v620 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.v4.b32 [$0], {$2, $3, $4, $5};\0A}", "l,r,r,r,r,r"(i16 addrspace(1)* %v611, i32 %v688, i32 %v675, i32 %v679, i32 %v683, i32 %v687)
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0, !1}

!0 = !{void (i16 addrspace(1)*, i16 addrspace(1)*, i16 addrspace(1)*, i32, i32, i32, i32, i32, i32)* @matmul, !"kernel", i32 1}
!1 = !{void (i16 addrspace(1)*, i16 addrspace(1)*, i16 addrspace(1)*, i32, i32, i32, i32, i32, i32)* @matmul, !"maxntidx", i32 32}
