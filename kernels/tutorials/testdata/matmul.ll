target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 1024

define void @matmul(i16 addrspace(1)* %a, i16 addrspace(1)* %b, i16 addrspace(1)* %c, i32 %M, i32 %N, i32 %K) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	%v1 = and i32 %v0, 31
	%v2 = lshr i32 %v0, 5
	%v3 = and i32 %v2, 3
	%v4 = and i32 %v2, 3
	%v5 = and i32 %v1, 31
	%v6 = and i32 %v2, 3
	%v7 = and i32 %v1, 31
	%v8 = lshr i32 %v6, 1
	%v9 = and i32 %v8, 3
	%v10 = lshr i32 %v7, 3
	%v11 = xor i32 %v10, %v9
	%v12 = shl i32 %v11, 3
	%v13 = and i32 %v7, 7
	%v14 = or i32 %v12, %v13
	%v15 = mul i32 %v6, 32
	%v16 = add i32 %v14, %v15
	%v17 = mul i32 %v16, 2
	%v18 = zext i32 %v17 to i64
	%v19 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v18
	%v20 = add i32 %v6, 4
	%v21 = lshr i32 %v20, 1
	%v22 = and i32 %v21, 3
	%v23 = lshr i32 %v7, 3
	%v24 = xor i32 %v23, %v22
	%v25 = shl i32 %v24, 3
	%v26 = and i32 %v7, 7
	%v27 = or i32 %v25, %v26
	%v28 = mul i32 %v20, 32
	%v29 = add i32 %v27, %v28
	%v30 = mul i32 %v29, 2
	%v31 = zext i32 %v30 to i64
	%v32 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v31
	%v33 = add i32 %v6, 8
	%v34 = lshr i32 %v33, 1
	%v35 = and i32 %v34, 3
	%v36 = lshr i32 %v7, 3
	%v37 = xor i32 %v36, %v35
	%v38 = shl i32 %v37, 3
	%v39 = and i32 %v7, 7
	%v40 = or i32 %v38, %v39
	%v41 = mul i32 %v33, 32
	%v42 = add i32 %v40, %v41
	%v43 = mul i32 %v42, 2
	%v44 = zext i32 %v43 to i64
	%v45 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v44
	%v46 = add i32 %v6, 12
	%v47 = lshr i32 %v46, 1
	%v48 = and i32 %v47, 3
	%v49 = lshr i32 %v7, 3
	%v50 = xor i32 %v49, %v48
	%v51 = shl i32 %v50, 3
	%v52 = and i32 %v7, 7
	%v53 = or i32 %v51, %v52
	%v54 = mul i32 %v46, 32
	%v55 = add i32 %v53, %v54
	%v56 = mul i32 %v55, 2
	%v57 = zext i32 %v56 to i64
	%v58 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v57
	%v59 = add i32 %v6, 16
	%v60 = lshr i32 %v59, 1
	%v61 = and i32 %v60, 3
	%v62 = lshr i32 %v7, 3
	%v63 = xor i32 %v62, %v61
	%v64 = shl i32 %v63, 3
	%v65 = and i32 %v7, 7
	%v66 = or i32 %v64, %v65
	%v67 = mul i32 %v59, 32
	%v68 = add i32 %v66, %v67
	%v69 = mul i32 %v68, 2
	%v70 = zext i32 %v69 to i64
	%v71 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v70
	%v72 = add i32 %v6, 20
	%v73 = lshr i32 %v72, 1
	%v74 = and i32 %v73, 3
	%v75 = lshr i32 %v7, 3
	%v76 = xor i32 %v75, %v74
	%v77 = shl i32 %v76, 3
	%v78 = and i32 %v7, 7
	%v79 = or i32 %v77, %v78
	%v80 = mul i32 %v72, 32
	%v81 = add i32 %v79, %v80
	%v82 = mul i32 %v81, 2
	%v83 = zext i32 %v82 to i64
	%v84 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v83
	%v85 = add i32 %v6, 24
	%v86 = lshr i32 %v85, 1
	%v87 = and i32 %v86, 3
	%v88 = lshr i32 %v7, 3
	%v89 = xor i32 %v88, %v87
	%v90 = shl i32 %v89, 3
	%v91 = and i32 %v7, 7
	%v92 = or i32 %v90, %v91
	%v93 = mul i32 %v85, 32
	%v94 = add i32 %v92, %v93
	%v95 = mul i32 %v94, 2
	%v96 = zext i32 %v95 to i64
	%v97 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v96
	%v98 = add i32 %v6, 28
	%v99 = lshr i32 %v98, 1
	%v100 = and i32 %v99, 3
	%v101 = lshr i32 %v7, 3
	%v102 = xor i32 %v101, %v100
	%v103 = shl i32 %v102, 3
	%v104 = and i32 %v7, 7
	%v105 = or i32 %v103, %v104
	%v106 = mul i32 %v98, 32
	%v107 = add i32 %v105, %v106
	%v108 = mul i32 %v107, 2
	%v109 = zext i32 %v108 to i64
	%v110 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v109
	%v111 = add i32 %v6, 32
	%v112 = lshr i32 %v111, 1
	%v113 = and i32 %v112, 3
	%v114 = lshr i32 %v7, 3
	%v115 = xor i32 %v114, %v113
	%v116 = shl i32 %v115, 3
	%v117 = and i32 %v7, 7
	%v118 = or i32 %v116, %v117
	%v119 = mul i32 %v111, 32
	%v120 = add i32 %v118, %v119
	%v121 = mul i32 %v120, 2
	%v122 = zext i32 %v121 to i64
	%v123 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v122
	%v124 = add i32 %v6, 36
	%v125 = lshr i32 %v124, 1
	%v126 = and i32 %v125, 3
	%v127 = lshr i32 %v7, 3
	%v128 = xor i32 %v127, %v126
	%v129 = shl i32 %v128, 3
	%v130 = and i32 %v7, 7
	%v131 = or i32 %v129, %v130
	%v132 = mul i32 %v124, 32
	%v133 = add i32 %v131, %v132
	%v134 = mul i32 %v133, 2
	%v135 = zext i32 %v134 to i64
	%v136 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v135
	%v137 = add i32 %v6, 40
	%v138 = lshr i32 %v137, 1
	%v139 = and i32 %v138, 3
	%v140 = lshr i32 %v7, 3
	%v141 = xor i32 %v140, %v139
	%v142 = shl i32 %v141, 3
	%v143 = and i32 %v7, 7
	%v144 = or i32 %v142, %v143
	%v145 = mul i32 %v137, 32
	%v146 = add i32 %v144, %v145
	%v147 = mul i32 %v146, 2
	%v148 = zext i32 %v147 to i64
	%v149 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v148
	%v150 = add i32 %v6, 44
	%v151 = lshr i32 %v150, 1
	%v152 = and i32 %v151, 3
	%v153 = lshr i32 %v7, 3
	%v154 = xor i32 %v153, %v152
	%v155 = shl i32 %v154, 3
	%v156 = and i32 %v7, 7
	%v157 = or i32 %v155, %v156
	%v158 = mul i32 %v150, 32
	%v159 = add i32 %v157, %v158
	%v160 = mul i32 %v159, 2
	%v161 = zext i32 %v160 to i64
	%v162 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v161
	%v163 = add i32 %v6, 48
	%v164 = lshr i32 %v163, 1
	%v165 = and i32 %v164, 3
	%v166 = lshr i32 %v7, 3
	%v167 = xor i32 %v166, %v165
	%v168 = shl i32 %v167, 3
	%v169 = and i32 %v7, 7
	%v170 = or i32 %v168, %v169
	%v171 = mul i32 %v163, 32
	%v172 = add i32 %v170, %v171
	%v173 = mul i32 %v172, 2
	%v174 = zext i32 %v173 to i64
	%v175 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v174
	%v176 = add i32 %v6, 52
	%v177 = lshr i32 %v176, 1
	%v178 = and i32 %v177, 3
	%v179 = lshr i32 %v7, 3
	%v180 = xor i32 %v179, %v178
	%v181 = shl i32 %v180, 3
	%v182 = and i32 %v7, 7
	%v183 = or i32 %v181, %v182
	%v184 = mul i32 %v176, 32
	%v185 = add i32 %v183, %v184
	%v186 = mul i32 %v185, 2
	%v187 = zext i32 %v186 to i64
	%v188 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v187
	%v189 = add i32 %v6, 56
	%v190 = lshr i32 %v189, 1
	%v191 = and i32 %v190, 3
	%v192 = lshr i32 %v7, 3
	%v193 = xor i32 %v192, %v191
	%v194 = shl i32 %v193, 3
	%v195 = and i32 %v7, 7
	%v196 = or i32 %v194, %v195
	%v197 = mul i32 %v189, 32
	%v198 = add i32 %v196, %v197
	%v199 = mul i32 %v198, 2
	%v200 = zext i32 %v199 to i64
	%v201 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v200
	%v202 = add i32 %v6, 60
	%v203 = lshr i32 %v202, 1
	%v204 = and i32 %v203, 3
	%v205 = lshr i32 %v7, 3
	%v206 = xor i32 %v205, %v204
	%v207 = shl i32 %v206, 3
	%v208 = and i32 %v7, 7
	%v209 = or i32 %v207, %v208
	%v210 = mul i32 %v202, 32
	%v211 = add i32 %v209, %v210
	%v212 = mul i32 %v211, 2
	%v213 = zext i32 %v212 to i64
	%v214 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v213
	%v215 = and i32 %v2, 3
	%v216 = and i32 %v1, 31
	%v217 = lshr i32 %v215, 1
	%v218 = and i32 %v217, 3
	%v219 = lshr i32 %v216, 3
	%v220 = xor i32 %v219, %v218
	%v221 = shl i32 %v220, 3
	%v222 = and i32 %v216, 7
	%v223 = or i32 %v221, %v222
	%v224 = mul i32 %v215, 32
	%v225 = add i32 %v223, %v224
	%v226 = mul i32 %v225, 2
	%v227 = add i32 u0x1000, %v226
	%v228 = zext i32 %v227 to i64
	%v229 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v228
	%v230 = add i32 %v215, 4
	%v231 = lshr i32 %v230, 1
	%v232 = and i32 %v231, 3
	%v233 = lshr i32 %v216, 3
	%v234 = xor i32 %v233, %v232
	%v235 = shl i32 %v234, 3
	%v236 = and i32 %v216, 7
	%v237 = or i32 %v235, %v236
	%v238 = mul i32 %v230, 32
	%v239 = add i32 %v237, %v238
	%v240 = mul i32 %v239, 2
	%v241 = add i32 u0x1000, %v240
	%v242 = zext i32 %v241 to i64
	%v243 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v242
	%v244 = add i32 %v215, 8
	%v245 = lshr i32 %v244, 1
	%v246 = and i32 %v245, 3
	%v247 = lshr i32 %v216, 3
	%v248 = xor i32 %v247, %v246
	%v249 = shl i32 %v248, 3
	%v250 = and i32 %v216, 7
	%v251 = or i32 %v249, %v250
	%v252 = mul i32 %v244, 32
	%v253 = add i32 %v251, %v252
	%v254 = mul i32 %v253, 2
	%v255 = add i32 u0x1000, %v254
	%v256 = zext i32 %v255 to i64
	%v257 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v256
	%v258 = add i32 %v215, 12
	%v259 = lshr i32 %v258, 1
	%v260 = and i32 %v259, 3
	%v261 = lshr i32 %v216, 3
	%v262 = xor i32 %v261, %v260
	%v263 = shl i32 %v262, 3
	%v264 = and i32 %v216, 7
	%v265 = or i32 %v263, %v264
	%v266 = mul i32 %v258, 32
	%v267 = add i32 %v265, %v266
	%v268 = mul i32 %v267, 2
	%v269 = add i32 u0x1000, %v268
	%v270 = zext i32 %v269 to i64
	%v271 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v270
	%v272 = add i32 %v215, 16
	%v273 = lshr i32 %v272, 1
	%v274 = and i32 %v273, 3
	%v275 = lshr i32 %v216, 3
	%v276 = xor i32 %v275, %v274
	%v277 = shl i32 %v276, 3
	%v278 = and i32 %v216, 7
	%v279 = or i32 %v277, %v278
	%v280 = mul i32 %v272, 32
	%v281 = add i32 %v279, %v280
	%v282 = mul i32 %v281, 2
	%v283 = add i32 u0x1000, %v282
	%v284 = zext i32 %v283 to i64
	%v285 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v284
	%v286 = add i32 %v215, 20
	%v287 = lshr i32 %v286, 1
	%v288 = and i32 %v287, 3
	%v289 = lshr i32 %v216, 3
	%v290 = xor i32 %v289, %v288
	%v291 = shl i32 %v290, 3
	%v292 = and i32 %v216, 7
	%v293 = or i32 %v291, %v292
	%v294 = mul i32 %v286, 32
	%v295 = add i32 %v293, %v294
	%v296 = mul i32 %v295, 2
	%v297 = add i32 u0x1000, %v296
	%v298 = zext i32 %v297 to i64
	%v299 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v298
	%v300 = add i32 %v215, 24
	%v301 = lshr i32 %v300, 1
	%v302 = and i32 %v301, 3
	%v303 = lshr i32 %v216, 3
	%v304 = xor i32 %v303, %v302
	%v305 = shl i32 %v304, 3
	%v306 = and i32 %v216, 7
	%v307 = or i32 %v305, %v306
	%v308 = mul i32 %v300, 32
	%v309 = add i32 %v307, %v308
	%v310 = mul i32 %v309, 2
	%v311 = add i32 u0x1000, %v310
	%v312 = zext i32 %v311 to i64
	%v313 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v312
	%v314 = add i32 %v215, 28
	%v315 = lshr i32 %v314, 1
	%v316 = and i32 %v315, 3
	%v317 = lshr i32 %v216, 3
	%v318 = xor i32 %v317, %v316
	%v319 = shl i32 %v318, 3
	%v320 = and i32 %v216, 7
	%v321 = or i32 %v319, %v320
	%v322 = mul i32 %v314, 32
	%v323 = add i32 %v321, %v322
	%v324 = mul i32 %v323, 2
	%v325 = add i32 u0x1000, %v324
	%v326 = zext i32 %v325 to i64
	%v327 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v326
	%v328 = ptrtoint [0 x i8] addrspace(3)* @global_smem to i32
	%v329 = lshr i32 %v1, 2
	%v330 = and i32 %v329, 7
	%v331 = and i32 %v2, 3
	%v332 = shl i32 %v331, 4
	%v333 = or i32 %v330, %v332
	%v334 = and i32 %v1, 3
	%v335 = shl i32 %v334, 1
	%v336 = mul i32 %v333, 34
	%v337 = add i32 %v336, %v335
	%v338 = mul i32 %v337, 2
	%v339 = zext i32 %v338 to i64
	%v340 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v339
	%v341 = mul i32 %v6, 34
	%v342 = add i32 %v341, %v7
	%v343 = mul i32 %v342, 2
	%v344 = zext i32 %v343 to i64
	%v345 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v344
	br label %body

body:
	%v346 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v347 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
	%v348 = mul i32 %v346, 64
	%v349 = add i32 %v3, 4
	%v350 = add i32 %v3, 8
	%v351 = add i32 %v3, 12
	%v352 = add i32 %v3, 16
	%v353 = add i32 %v3, 20
	%v354 = add i32 %v3, 24
	%v355 = add i32 %v3, 28
	%v356 = add i32 %v3, 32
	%v357 = add i32 %v3, 36
	%v358 = add i32 %v3, 40
	%v359 = add i32 %v3, 44
	%v360 = add i32 %v3, 48
	%v361 = add i32 %v3, 52
	%v362 = add i32 %v3, 56
	%v363 = add i32 %v3, 60
	%v364 = add i32 %v348, %v3
	%v365 = add i32 %v348, %v349
	%v366 = add i32 %v348, %v350
	%v367 = add i32 %v348, %v351
	%v368 = add i32 %v348, %v352
	%v369 = add i32 %v348, %v353
	%v370 = add i32 %v348, %v354
	%v371 = add i32 %v348, %v355
	%v372 = add i32 %v348, %v356
	%v373 = add i32 %v348, %v357
	%v374 = add i32 %v348, %v358
	%v375 = add i32 %v348, %v359
	%v376 = add i32 %v348, %v360
	%v377 = add i32 %v348, %v361
	%v378 = add i32 %v348, %v362
	%v379 = add i32 %v348, %v363
	%v380 = mul i32 %v347, 32
	%v381 = add i32 %v4, 4
	%v382 = add i32 %v4, 8
	%v383 = add i32 %v4, 12
	%v384 = add i32 %v4, 16
	%v385 = add i32 %v4, 20
	%v386 = add i32 %v4, 24
	%v387 = add i32 %v4, 28
	%v388 = add i32 %v380, %v5
	br label %bb1

bb1:
	%v389 = phi i32 [ 0, %body ], [ %v739, %bb2 ]
	%v390 = phi float [ 0.0, %body ], [ %v723, %bb2 ]
	%v391 = phi float [ 0.0, %body ], [ %v724, %bb2 ]
	%v392 = phi float [ 0.0, %body ], [ %v725, %bb2 ]
	%v393 = phi float [ 0.0, %body ], [ %v726, %bb2 ]
	%v394 = phi float [ 0.0, %body ], [ %v727, %bb2 ]
	%v395 = phi float [ 0.0, %body ], [ %v728, %bb2 ]
	%v396 = phi float [ 0.0, %body ], [ %v729, %bb2 ]
	%v397 = phi float [ 0.0, %body ], [ %v730, %bb2 ]
	%v398 = phi float [ 0.0, %body ], [ %v731, %bb2 ]
	%v399 = phi float [ 0.0, %body ], [ %v732, %bb2 ]
	%v400 = phi float [ 0.0, %body ], [ %v733, %bb2 ]
	%v401 = phi float [ 0.0, %body ], [ %v734, %bb2 ]
	%v402 = phi float [ 0.0, %body ], [ %v735, %bb2 ]
	%v403 = phi float [ 0.0, %body ], [ %v736, %bb2 ]
	%v404 = phi float [ 0.0, %body ], [ %v737, %bb2 ]
	%v405 = phi float [ 0.0, %body ], [ %v738, %bb2 ]
	%v406 = icmp slt i32 %v389, %K
	br i1 %v406, label %bb2, label %bb3

bb2:
	%v407 = add i32 %v389, %v4
	%v408 = add i32 %v389, %v381
	%v409 = add i32 %v389, %v382
	%v410 = add i32 %v389, %v383
	%v411 = add i32 %v389, %v384
	%v412 = add i32 %v389, %v385
	%v413 = add i32 %v389, %v386
	%v414 = add i32 %v389, %v387
	%v415 = add i32 %v389, %v5
	%v416 = mul i32 %v364, %K
	%v417 = mul i32 %v365, %K
	%v418 = mul i32 %v366, %K
	%v419 = mul i32 %v367, %K
	%v420 = mul i32 %v368, %K
	%v421 = mul i32 %v369, %K
	%v422 = mul i32 %v370, %K
	%v423 = mul i32 %v371, %K
	%v424 = mul i32 %v372, %K
	%v425 = mul i32 %v373, %K
	%v426 = mul i32 %v374, %K
	%v427 = mul i32 %v375, %K
	%v428 = mul i32 %v376, %K
	%v429 = mul i32 %v377, %K
	%v430 = mul i32 %v378, %K
	%v431 = mul i32 %v379, %K
	%v432 = sext i32 %v416 to i64
	%v433 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v432
	%v434 = sext i32 %v417 to i64
	%v435 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v434
	%v436 = sext i32 %v418 to i64
	%v437 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v436
	%v438 = sext i32 %v419 to i64
	%v439 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v438
	%v440 = sext i32 %v420 to i64
	%v441 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v440
	%v442 = sext i32 %v421 to i64
	%v443 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v442
	%v444 = sext i32 %v422 to i64
	%v445 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v444
	%v446 = sext i32 %v423 to i64
	%v447 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v446
	%v448 = sext i32 %v424 to i64
	%v449 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v448
	%v450 = sext i32 %v425 to i64
	%v451 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v450
	%v452 = sext i32 %v426 to i64
	%v453 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v452
	%v454 = sext i32 %v427 to i64
	%v455 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v454
	%v456 = sext i32 %v428 to i64
	%v457 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v456
	%v458 = sext i32 %v429 to i64
	%v459 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v458
	%v460 = sext i32 %v430 to i64
	%v461 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v460
	%v462 = sext i32 %v431 to i64
	%v463 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v462
	%v464 = sext i32 %v415 to i64
	%v465 = getelementptr inbounds i16, i16 addrspace(1)* %v433, i64 %v464
	%v466 = sext i32 %v415 to i64
	%v467 = getelementptr inbounds i16, i16 addrspace(1)* %v435, i64 %v466
	%v468 = sext i32 %v415 to i64
	%v469 = getelementptr inbounds i16, i16 addrspace(1)* %v437, i64 %v468
	%v470 = sext i32 %v415 to i64
	%v471 = getelementptr inbounds i16, i16 addrspace(1)* %v439, i64 %v470
	%v472 = sext i32 %v415 to i64
	%v473 = getelementptr inbounds i16, i16 addrspace(1)* %v441, i64 %v472
	%v474 = sext i32 %v415 to i64
	%v475 = getelementptr inbounds i16, i16 addrspace(1)* %v443, i64 %v474
	%v476 = sext i32 %v415 to i64
	%v477 = getelementptr inbounds i16, i16 addrspace(1)* %v445, i64 %v476
	%v478 = sext i32 %v415 to i64
	%v479 = getelementptr inbounds i16, i16 addrspace(1)* %v447, i64 %v478
	%v480 = sext i32 %v415 to i64
	%v481 = getelementptr inbounds i16, i16 addrspace(1)* %v449, i64 %v480
	%v482 = sext i32 %v415 to i64
	%v483 = getelementptr inbounds i16, i16 addrspace(1)* %v451, i64 %v482
	%v484 = sext i32 %v415 to i64
	%v485 = getelementptr inbounds i16, i16 addrspace(1)* %v453, i64 %v484
	%v486 = sext i32 %v415 to i64
	%v487 = getelementptr inbounds i16, i16 addrspace(1)* %v455, i64 %v486
	%v488 = sext i32 %v415 to i64
	%v489 = getelementptr inbounds i16, i16 addrspace(1)* %v457, i64 %v488
	%v490 = sext i32 %v415 to i64
	%v491 = getelementptr inbounds i16, i16 addrspace(1)* %v459, i64 %v490
	%v492 = sext i32 %v415 to i64
	%v493 = getelementptr inbounds i16, i16 addrspace(1)* %v461, i64 %v492
	%v494 = sext i32 %v415 to i64
	%v495 = getelementptr inbounds i16, i16 addrspace(1)* %v463, i64 %v494
	%v496 = icmp slt i32 %v364, %M
	%v497 = icmp slt i32 %v365, %M
	%v498 = icmp slt i32 %v366, %M
	%v499 = icmp slt i32 %v367, %M
	%v500 = icmp slt i32 %v368, %M
	%v501 = icmp slt i32 %v369, %M
	%v502 = icmp slt i32 %v370, %M
	%v503 = icmp slt i32 %v371, %M
	%v504 = icmp slt i32 %v372, %M
	%v505 = icmp slt i32 %v373, %M
	%v506 = icmp slt i32 %v374, %M
	%v507 = icmp slt i32 %v375, %M
	%v508 = icmp slt i32 %v376, %M
	%v509 = icmp slt i32 %v377, %M
	%v510 = icmp slt i32 %v378, %M
	%v511 = icmp slt i32 %v379, %M
	%v512 = icmp slt i32 %v407, %K
	%v513 = icmp slt i32 %v408, %K
	%v514 = icmp slt i32 %v409, %K
	%v515 = icmp slt i32 %v410, %K
	%v516 = icmp slt i32 %v411, %K
	%v517 = icmp slt i32 %v412, %K
	%v518 = icmp slt i32 %v413, %K
	%v519 = icmp slt i32 %v414, %K
	%v520 = icmp slt i32 %v415, %K
	%v521 = and i1 %v496, %v520
	%v522 = and i1 %v497, %v520
	%v523 = and i1 %v498, %v520
	%v524 = and i1 %v499, %v520
	%v525 = and i1 %v500, %v520
	%v526 = and i1 %v501, %v520
	%v527 = and i1 %v502, %v520
	%v528 = and i1 %v503, %v520
	%v529 = and i1 %v504, %v520
	%v530 = and i1 %v505, %v520
	%v531 = and i1 %v506, %v520
	%v532 = and i1 %v507, %v520
	%v533 = and i1 %v508, %v520
	%v534 = and i1 %v509, %v520
	%v535 = and i1 %v510, %v520
	%v536 = and i1 %v511, %v520
	%v537 = zext i1 %v521 to i32
	%v538 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v465, i32 %v537, i16 0)
	%v539 = zext i1 %v522 to i32
	%v540 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v467, i32 %v539, i16 0)
	%v541 = zext i1 %v523 to i32
	%v542 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v469, i32 %v541, i16 0)
	%v543 = zext i1 %v524 to i32
	%v544 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v471, i32 %v543, i16 0)
	%v545 = zext i1 %v525 to i32
	%v546 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v473, i32 %v545, i16 0)
	%v547 = zext i1 %v526 to i32
	%v548 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v475, i32 %v547, i16 0)
	%v549 = zext i1 %v527 to i32
	%v550 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v477, i32 %v549, i16 0)
	%v551 = zext i1 %v528 to i32
	%v552 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v479, i32 %v551, i16 0)
	%v553 = zext i1 %v529 to i32
	%v554 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v481, i32 %v553, i16 0)
	%v555 = zext i1 %v530 to i32
	%v556 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v483, i32 %v555, i16 0)
	%v557 = zext i1 %v531 to i32
	%v558 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v485, i32 %v557, i16 0)
	%v559 = zext i1 %v532 to i32
	%v560 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v487, i32 %v559, i16 0)
	%v561 = zext i1 %v533 to i32
	%v562 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v489, i32 %v561, i16 0)
	%v563 = zext i1 %v534 to i32
	%v564 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v491, i32 %v563, i16 0)
	%v565 = zext i1 %v535 to i32
	%v566 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v493, i32 %v565, i16 0)
	%v567 = zext i1 %v536 to i32
	%v568 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v495, i32 %v567, i16 0)
	%v569 = mul i32 %v407, %N
	%v570 = mul i32 %v408, %N
	%v571 = mul i32 %v409, %N
	%v572 = mul i32 %v410, %N
	%v573 = mul i32 %v411, %N
	%v574 = mul i32 %v412, %N
	%v575 = mul i32 %v413, %N
	%v576 = mul i32 %v414, %N
	%v577 = sext i32 %v569 to i64
	%v578 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v577
	%v579 = sext i32 %v570 to i64
	%v580 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v579
	%v581 = sext i32 %v571 to i64
	%v582 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v581
	%v583 = sext i32 %v572 to i64
	%v584 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v583
	%v585 = sext i32 %v573 to i64
	%v586 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v585
	%v587 = sext i32 %v574 to i64
	%v588 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v587
	%v589 = sext i32 %v575 to i64
	%v590 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v589
	%v591 = sext i32 %v576 to i64
	%v592 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v591
	%v593 = sext i32 %v388 to i64
	%v594 = getelementptr inbounds i16, i16 addrspace(1)* %v578, i64 %v593
	%v595 = sext i32 %v388 to i64
	%v596 = getelementptr inbounds i16, i16 addrspace(1)* %v580, i64 %v595
	%v597 = sext i32 %v388 to i64
	%v598 = getelementptr inbounds i16, i16 addrspace(1)* %v582, i64 %v597
	%v599 = sext i32 %v388 to i64
	%v600 = getelementptr inbounds i16, i16 addrspace(1)* %v584, i64 %v599
	%v601 = sext i32 %v388 to i64
	%v602 = getelementptr inbounds i16, i16 addrspace(1)* %v586, i64 %v601
	%v603 = sext i32 %v388 to i64
	%v604 = getelementptr inbounds i16, i16 addrspace(1)* %v588, i64 %v603
	%v605 = sext i32 %v388 to i64
	%v606 = getelementptr inbounds i16, i16 addrspace(1)* %v590, i64 %v605
	%v607 = sext i32 %v388 to i64
	%v608 = getelementptr inbounds i16, i16 addrspace(1)* %v592, i64 %v607
	%v609 = icmp slt i32 %v388, %N
	%v610 = and i1 %v512, %v609
	%v611 = and i1 %v513, %v609
	%v612 = and i1 %v514, %v609
	%v613 = and i1 %v515, %v609
	%v614 = and i1 %v516, %v609
	%v615 = and i1 %v517, %v609
	%v616 = and i1 %v518, %v609
	%v617 = and i1 %v519, %v609
	%v618 = zext i1 %v610 to i32
	%v619 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v594, i32 %v618, i16 0)
	%v620 = zext i1 %v611 to i32
	%v621 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v596, i32 %v620, i16 0)
	%v622 = zext i1 %v612 to i32
	%v623 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v598, i32 %v622, i16 0)
	%v624 = zext i1 %v613 to i32
	%v625 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v600, i32 %v624, i16 0)
	%v626 = zext i1 %v614 to i32
	%v627 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v602, i32 %v626, i16 0)
	%v628 = zext i1 %v615 to i32
	%v629 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v604, i32 %v628, i16 0)
	%v630 = zext i1 %v616 to i32
	%v631 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v606, i32 %v630, i16 0)
	%v632 = zext i1 %v617 to i32
	%v633 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v608, i32 %v632, i16 0)
	call void @llvm.nvvm.barrier0()
	%v634 = bitcast i8 addrspace(3)* %v19 to i16 addrspace(3)*
	store i16 %v538, i16 addrspace(3)* %v634, align 2
	%v635 = bitcast i8 addrspace(3)* %v32 to i16 addrspace(3)*
	store i16 %v540, i16 addrspace(3)* %v635, align 2
	%v636 = bitcast i8 addrspace(3)* %v45 to i16 addrspace(3)*
	store i16 %v542, i16 addrspace(3)* %v636, align 2
	%v637 = bitcast i8 addrspace(3)* %v58 to i16 addrspace(3)*
	store i16 %v544, i16 addrspace(3)* %v637, align 2
	%v638 = bitcast i8 addrspace(3)* %v71 to i16 addrspace(3)*
	store i16 %v546, i16 addrspace(3)* %v638, align 2
	%v639 = bitcast i8 addrspace(3)* %v84 to i16 addrspace(3)*
	store i16 %v548, i16 addrspace(3)* %v639, align 2
	%v640 = bitcast i8 addrspace(3)* %v97 to i16 addrspace(3)*
	store i16 %v550, i16 addrspace(3)* %v640, align 2
	%v641 = bitcast i8 addrspace(3)* %v110 to i16 addrspace(3)*
	store i16 %v552, i16 addrspace(3)* %v641, align 2
	%v642 = bitcast i8 addrspace(3)* %v123 to i16 addrspace(3)*
	store i16 %v554, i16 addrspace(3)* %v642, align 2
	%v643 = bitcast i8 addrspace(3)* %v136 to i16 addrspace(3)*
	store i16 %v556, i16 addrspace(3)* %v643, align 2
	%v644 = bitcast i8 addrspace(3)* %v149 to i16 addrspace(3)*
	store i16 %v558, i16 addrspace(3)* %v644, align 2
	%v645 = bitcast i8 addrspace(3)* %v162 to i16 addrspace(3)*
	store i16 %v560, i16 addrspace(3)* %v645, align 2
	%v646 = bitcast i8 addrspace(3)* %v175 to i16 addrspace(3)*
	store i16 %v562, i16 addrspace(3)* %v646, align 2
	%v647 = bitcast i8 addrspace(3)* %v188 to i16 addrspace(3)*
	store i16 %v564, i16 addrspace(3)* %v647, align 2
	%v648 = bitcast i8 addrspace(3)* %v201 to i16 addrspace(3)*
	store i16 %v566, i16 addrspace(3)* %v648, align 2
	%v649 = bitcast i8 addrspace(3)* %v214 to i16 addrspace(3)*
	store i16 %v568, i16 addrspace(3)* %v649, align 2
	%v650 = bitcast i8 addrspace(3)* %v229 to i16 addrspace(3)*
	store i16 %v619, i16 addrspace(3)* %v650, align 2
	%v651 = bitcast i8 addrspace(3)* %v243 to i16 addrspace(3)*
	store i16 %v621, i16 addrspace(3)* %v651, align 2
	%v652 = bitcast i8 addrspace(3)* %v257 to i16 addrspace(3)*
	store i16 %v623, i16 addrspace(3)* %v652, align 2
	%v653 = bitcast i8 addrspace(3)* %v271 to i16 addrspace(3)*
	store i16 %v625, i16 addrspace(3)* %v653, align 2
	%v654 = bitcast i8 addrspace(3)* %v285 to i16 addrspace(3)*
	store i16 %v627, i16 addrspace(3)* %v654, align 2
	%v655 = bitcast i8 addrspace(3)* %v299 to i16 addrspace(3)*
	store i16 %v629, i16 addrspace(3)* %v655, align 2
	%v656 = bitcast i8 addrspace(3)* %v313 to i16 addrspace(3)*
	store i16 %v631, i16 addrspace(3)* %v656, align 2
	%v657 = bitcast i8 addrspace(3)* %v327 to i16 addrspace(3)*
	store i16 %v633, i16 addrspace(3)* %v657, align 2
	%v658 = add i32 %v328, u0x1000
	call void asm sideeffect "fence.proxy.async.shared::cta;", "~{memory}"()
	call void @llvm.nvvm.barrier0()
	%v659 = call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "wgmma.fence.sync.aligned;", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,~{memory}"(float %v390, float %v391, float %v392, float %v393, float %v394, float %v395, float %v396, float %v397, float %v398, float %v399, float %v400, float %v401, float %v402, float %v403, float %v404, float %v405) #0
	%v660 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 0
	%v661 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 1
	%v662 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 2
	%v663 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 3
	%v664 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 4
	%v665 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 5
	%v666 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 6
	%v667 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 7
	%v668 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 8
	%v669 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 9
	%v670 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 10
	%v671 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 11
	%v672 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 12
	%v673 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 13
	%v674 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 14
	%v675 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v659, 15
	%v676 = lshr i32 %v658, 4
	%v677 = and i32 %v676, u0x3FFF
	%v678 = zext i32 %v677 to i64
	%v679 = or i64 %v678, -9223371899413725184
	%v680 = lshr i32 %v328, 4
	%v681 = and i32 %v680, u0x3FFF
	%v682 = zext i32 %v681 to i64
	%v683 = or i64 %v682, -9223371899415756800
	%v684 = add i64 %v683, 0
	%v685 = add i64 %v679, 0
	%v686 = call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "{\0A\09.reg .pred %wgp;\0A\09setp.ne.b32 %wgp, $34, 0;\0A\09wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15}, $32, $33, %wgp, 1, 1, 0, 1;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,l,l,r,~{memory}"(float %v660, float %v661, float %v662, float %v663, float %v664, float %v665, float %v666, float %v667, float %v668, float %v669, float %v670, float %v671, float %v672, float %v673, float %v674, float %v675, i64 %v684, i64 %v685, i32 1) #0
	%v687 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 0
	%v688 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 1
	%v689 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 2
	%v690 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 3
	%v691 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 4
	%v692 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 5
	%v693 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 6
	%v694 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 7
	%v695 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 8
	%v696 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 9
	%v697 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 10
	%v698 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 11
	%v699 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 12
	%v700 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 13
	%v701 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 14
	%v702 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v686, 15
	%v703 = add i64 %v683, 2
	%v704 = add i64 %v679, 64
	%v705 = call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "{\0A\09.reg .pred %wgp;\0A\09setp.ne.b32 %wgp, $34, 0;\0A\09wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15}, $32, $33, %wgp, 1, 1, 0, 1;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,l,l,r,~{memory}"(float %v687, float %v688, float %v689, float %v690, float %v691, float %v692, float %v693, float %v694, float %v695, float %v696, float %v697, float %v698, float %v699, float %v700, float %v701, float %v702, i64 %v703, i64 %v704, i32 1) #0
	%v706 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 0
	%v707 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 1
	%v708 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 2
	%v709 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 3
	%v710 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 4
	%v711 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 5
	%v712 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 6
	%v713 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 7
	%v714 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 8
	%v715 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 9
	%v716 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 10
	%v717 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 11
	%v718 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 12
	%v719 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 13
	%v720 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 14
	%v721 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v705, 15
	call void asm sideeffect "wgmma.commit_group.sync.aligned;", "~{memory}"() #0
	%v722 = call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,~{memory}"(float %v706, float %v707, float %v708, float %v709, float %v710, float %v711, float %v712, float %v713, float %v714, float %v715, float %v716, float %v717, float %v718, float %v719, float %v720, float %v721) #0
	%v723 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 0
	%v724 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 1
	%v725 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 2
	%v726 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 3
	%v727 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 4
	%v728 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 5
	%v729 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 6
	%v730 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 7
	%v731 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 8
	%v732 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 9
	%v733 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 10
	%v734 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 11
	%v735 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 12
	%v736 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 13
	%v737 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 14
	%v738 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %v722, 15
	%v739 = add i32 %v389, 32
	br label %bb1

bb3:
	%v740 = mul i32 %v364, %N
	%v741 = mul i32 %v365, %N
	%v742 = mul i32 %v366, %N
	%v743 = mul i32 %v367, %N
	%v744 = mul i32 %v368, %N
	%v745 = mul i32 %v369, %N
	%v746 = mul i32 %v370, %N
	%v747 = mul i32 %v371, %N
	%v748 = mul i32 %v372, %N
	%v749 = mul i32 %v373, %N
	%v750 = mul i32 %v374, %N
	%v751 = mul i32 %v375, %N
	%v752 = mul i32 %v376, %N
	%v753 = mul i32 %v377, %N
	%v754 = mul i32 %v378, %N
	%v755 = mul i32 %v379, %N
	%v756 = sext i32 %v740 to i64
	%v757 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v756
	%v758 = sext i32 %v741 to i64
	%v759 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v758
	%v760 = sext i32 %v742 to i64
	%v761 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v760
	%v762 = sext i32 %v743 to i64
	%v763 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v762
	%v764 = sext i32 %v744 to i64
	%v765 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v764
	%v766 = sext i32 %v745 to i64
	%v767 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v766
	%v768 = sext i32 %v746 to i64
	%v769 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v768
	%v770 = sext i32 %v747 to i64
	%v771 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v770
	%v772 = sext i32 %v748 to i64
	%v773 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v772
	%v774 = sext i32 %v749 to i64
	%v775 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v774
	%v776 = sext i32 %v750 to i64
	%v777 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v776
	%v778 = sext i32 %v751 to i64
	%v779 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v778
	%v780 = sext i32 %v752 to i64
	%v781 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v780
	%v782 = sext i32 %v753 to i64
	%v783 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v782
	%v784 = sext i32 %v754 to i64
	%v785 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v784
	%v786 = sext i32 %v755 to i64
	%v787 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v786
	%v788 = sext i32 %v388 to i64
	%v789 = getelementptr inbounds i16, i16 addrspace(1)* %v757, i64 %v788
	%v790 = sext i32 %v388 to i64
	%v791 = getelementptr inbounds i16, i16 addrspace(1)* %v759, i64 %v790
	%v792 = sext i32 %v388 to i64
	%v793 = getelementptr inbounds i16, i16 addrspace(1)* %v761, i64 %v792
	%v794 = sext i32 %v388 to i64
	%v795 = getelementptr inbounds i16, i16 addrspace(1)* %v763, i64 %v794
	%v796 = sext i32 %v388 to i64
	%v797 = getelementptr inbounds i16, i16 addrspace(1)* %v765, i64 %v796
	%v798 = sext i32 %v388 to i64
	%v799 = getelementptr inbounds i16, i16 addrspace(1)* %v767, i64 %v798
	%v800 = sext i32 %v388 to i64
	%v801 = getelementptr inbounds i16, i16 addrspace(1)* %v769, i64 %v800
	%v802 = sext i32 %v388 to i64
	%v803 = getelementptr inbounds i16, i16 addrspace(1)* %v771, i64 %v802
	%v804 = sext i32 %v388 to i64
	%v805 = getelementptr inbounds i16, i16 addrspace(1)* %v773, i64 %v804
	%v806 = sext i32 %v388 to i64
	%v807 = getelementptr inbounds i16, i16 addrspace(1)* %v775, i64 %v806
	%v808 = sext i32 %v388 to i64
	%v809 = getelementptr inbounds i16, i16 addrspace(1)* %v777, i64 %v808
	%v810 = sext i32 %v388 to i64
	%v811 = getelementptr inbounds i16, i16 addrspace(1)* %v779, i64 %v810
	%v812 = sext i32 %v388 to i64
	%v813 = getelementptr inbounds i16, i16 addrspace(1)* %v781, i64 %v812
	%v814 = sext i32 %v388 to i64
	%v815 = getelementptr inbounds i16, i16 addrspace(1)* %v783, i64 %v814
	%v816 = sext i32 %v388 to i64
	%v817 = getelementptr inbounds i16, i16 addrspace(1)* %v785, i64 %v816
	%v818 = sext i32 %v388 to i64
	%v819 = getelementptr inbounds i16, i16 addrspace(1)* %v787, i64 %v818
	call void @llvm.nvvm.barrier0()
	%v820 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v391, float %v390)
	%v821 = bitcast i8 addrspace(3)* %v340 to i32 addrspace(3)*
	store i32 %v820, i32 addrspace(3)* %v821, align 4
	%v822 = getelementptr inbounds i8, i8 addrspace(3)* %v340, i32 544
	%v823 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v393, float %v392)
	%v824 = bitcast i8 addrspace(3)* %v822 to i32 addrspace(3)*
	store i32 %v823, i32 addrspace(3)* %v824, align 4
	%v825 = getelementptr inbounds i8, i8 addrspace(3)* %v340, i32 16
	%v826 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v395, float %v394)
	%v827 = bitcast i8 addrspace(3)* %v825 to i32 addrspace(3)*
	store i32 %v826, i32 addrspace(3)* %v827, align 4
	%v828 = getelementptr inbounds i8, i8 addrspace(3)* %v340, i32 560
	%v829 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v397, float %v396)
	%v830 = bitcast i8 addrspace(3)* %v828 to i32 addrspace(3)*
	store i32 %v829, i32 addrspace(3)* %v830, align 4
	%v831 = getelementptr inbounds i8, i8 addrspace(3)* %v340, i32 32
	%v832 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v399, float %v398)
	%v833 = bitcast i8 addrspace(3)* %v831 to i32 addrspace(3)*
	store i32 %v832, i32 addrspace(3)* %v833, align 4
	%v834 = getelementptr inbounds i8, i8 addrspace(3)* %v340, i32 576
	%v835 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v401, float %v400)
	%v836 = bitcast i8 addrspace(3)* %v834 to i32 addrspace(3)*
	store i32 %v835, i32 addrspace(3)* %v836, align 4
	%v837 = getelementptr inbounds i8, i8 addrspace(3)* %v340, i32 48
	%v838 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v403, float %v402)
	%v839 = bitcast i8 addrspace(3)* %v837 to i32 addrspace(3)*
	store i32 %v838, i32 addrspace(3)* %v839, align 4
	%v840 = getelementptr inbounds i8, i8 addrspace(3)* %v340, i32 592
	%v841 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v405, float %v404)
	%v842 = bitcast i8 addrspace(3)* %v840 to i32 addrspace(3)*
	store i32 %v841, i32 addrspace(3)* %v842, align 4
	call void @llvm.nvvm.barrier0()
	%v843 = bitcast i8 addrspace(3)* %v345 to i16 addrspace(3)*
	%v844 = load i16, i16 addrspace(3)* %v843, align 2
	%v845 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 272
	%v846 = bitcast i8 addrspace(3)* %v845 to i16 addrspace(3)*
	%v847 = load i16, i16 addrspace(3)* %v846, align 2
	%v848 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 544
	%v849 = bitcast i8 addrspace(3)* %v848 to i16 addrspace(3)*
	%v850 = load i16, i16 addrspace(3)* %v849, align 2
	%v851 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 816
	%v852 = bitcast i8 addrspace(3)* %v851 to i16 addrspace(3)*
	%v853 = load i16, i16 addrspace(3)* %v852, align 2
	%v854 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 1088
	%v855 = bitcast i8 addrspace(3)* %v854 to i16 addrspace(3)*
	%v856 = load i16, i16 addrspace(3)* %v855, align 2
	%v857 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 1360
	%v858 = bitcast i8 addrspace(3)* %v857 to i16 addrspace(3)*
	%v859 = load i16, i16 addrspace(3)* %v858, align 2
	%v860 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 1632
	%v861 = bitcast i8 addrspace(3)* %v860 to i16 addrspace(3)*
	%v862 = load i16, i16 addrspace(3)* %v861, align 2
	%v863 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 1904
	%v864 = bitcast i8 addrspace(3)* %v863 to i16 addrspace(3)*
	%v865 = load i16, i16 addrspace(3)* %v864, align 2
	%v866 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 2176
	%v867 = bitcast i8 addrspace(3)* %v866 to i16 addrspace(3)*
	%v868 = load i16, i16 addrspace(3)* %v867, align 2
	%v869 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 2448
	%v870 = bitcast i8 addrspace(3)* %v869 to i16 addrspace(3)*
	%v871 = load i16, i16 addrspace(3)* %v870, align 2
	%v872 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 2720
	%v873 = bitcast i8 addrspace(3)* %v872 to i16 addrspace(3)*
	%v874 = load i16, i16 addrspace(3)* %v873, align 2
	%v875 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 2992
	%v876 = bitcast i8 addrspace(3)* %v875 to i16 addrspace(3)*
	%v877 = load i16, i16 addrspace(3)* %v876, align 2
	%v878 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 3264
	%v879 = bitcast i8 addrspace(3)* %v878 to i16 addrspace(3)*
	%v880 = load i16, i16 addrspace(3)* %v879, align 2
	%v881 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 3536
	%v882 = bitcast i8 addrspace(3)* %v881 to i16 addrspace(3)*
	%v883 = load i16, i16 addrspace(3)* %v882, align 2
	%v884 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 3808
	%v885 = bitcast i8 addrspace(3)* %v884 to i16 addrspace(3)*
	%v886 = load i16, i16 addrspace(3)* %v885, align 2
	%v887 = getelementptr inbounds i8, i8 addrspace(3)* %v345, i32 4080
	%v888 = bitcast i8 addrspace(3)* %v887 to i16 addrspace(3)*
	%v889 = load i16, i16 addrspace(3)* %v888, align 2
	%v890 = icmp slt i32 %v364, %M
	%v891 = icmp slt i32 %v365, %M
	%v892 = icmp slt i32 %v366, %M
	%v893 = icmp slt i32 %v367, %M
	%v894 = icmp slt i32 %v368, %M
	%v895 = icmp slt i32 %v369, %M
	%v896 = icmp slt i32 %v370, %M
	%v897 = icmp slt i32 %v371, %M
	%v898 = icmp slt i32 %v372, %M
	%v899 = icmp slt i32 %v373, %M
	%v900 = icmp slt i32 %v374, %M
	%v901 = icmp slt i32 %v375, %M
	%v902 = icmp slt i32 %v376, %M
	%v903 = icmp slt i32 %v377, %M
	%v904 = icmp slt i32 %v378, %M
	%v905 = icmp slt i32 %v379, %M
	%v906 = icmp slt i32 %v388, %N
	%v907 = and i1 %v890, %v906
	%v908 = and i1 %v891, %v906
	%v909 = and i1 %v892, %v906
	%v910 = and i1 %v893, %v906
	%v911 = and i1 %v894, %v906
	%v912 = and i1 %v895, %v906
	%v913 = and i1 %v896, %v906
	%v914 = and i1 %v897, %v906
	%v915 = and i1 %v898, %v906
	%v916 = and i1 %v899, %v906
	%v917 = and i1 %v900, %v906
	%v918 = and i1 %v901, %v906
	%v919 = and i1 %v902, %v906
	%v920 = and i1 %v903, %v906
	%v921 = and i1 %v904, %v906
	%v922 = and i1 %v905, %v906
	%v923 = zext i1 %v907 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v789, i32 %v923, i16 %v844)
	%v924 = zext i1 %v908 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v791, i32 %v924, i16 %v847)
	%v925 = zext i1 %v909 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v793, i32 %v925, i16 %v850)
	%v926 = zext i1 %v910 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v795, i32 %v926, i16 %v853)
	%v927 = zext i1 %v911 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v797, i32 %v927, i16 %v856)
	%v928 = zext i1 %v912 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v799, i32 %v928, i16 %v859)
	%v929 = zext i1 %v913 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v801, i32 %v929, i16 %v862)
	%v930 = zext i1 %v914 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v803, i32 %v930, i16 %v865)
	%v931 = zext i1 %v915 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v805, i32 %v931, i16 %v868)
	%v932 = zext i1 %v916 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v807, i32 %v932, i16 %v871)
	%v933 = zext i1 %v917 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v809, i32 %v933, i16 %v874)
	%v934 = zext i1 %v918 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v811, i32 %v934, i16 %v877)
	%v935 = zext i1 %v919 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v813, i32 %v935, i16 %v880)
	%v936 = zext i1 %v920 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v815, i32 %v936, i16 %v883)
	%v937 = zext i1 %v921 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v817, i32 %v937, i16 %v886)
	%v938 = zext i1 %v922 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v819, i32 %v938, i16 %v889)
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()

declare void @llvm.nvvm.barrier0()

attributes #0 = { convergent }

!nvvm.annotations = !{!0, !1}

!0 = !{void (i16 addrspace(1)*, i16 addrspace(1)*, i16 addrspace(1)*, i32, i32, i32)* @matmul, !"kernel", i32 1}
!1 = !{void (i16 addrspace(1)*, i16 addrspace(1)*, i16 addrspace(1)*, i32, i32, i32)* @matmul, !"maxntidx", i32 128}
