target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

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
	%v328 = and i32 %v2, 1
	%v329 = shl i32 %v328, 4
	%v330 = lshr i32 %v2, 1
	%v331 = and i32 %v330, 1
	%v332 = shl i32 %v331, 5
	%v333 = or i32 %v329, %v332
	%v334 = lshr i32 %v1, 4
	%v335 = and i32 %v1, 15
	%v336 = shl i32 %v334, 3
	%v337 = add i32 %v335, %v333
	%v338 = lshr i32 %v1, 4
	%v339 = mul i32 %v338, 8
	%v340 = and i32 %v1, 15
	%v341 = ptrtoint [0 x i8] addrspace(3)* @global_smem to i32
	%v342 = lshr i32 %v337, 1
	%v343 = and i32 %v342, 3
	%v344 = lshr i32 %v336, 3
	%v345 = xor i32 %v344, %v343
	%v346 = shl i32 %v345, 3
	%v347 = and i32 %v336, 7
	%v348 = or i32 %v346, %v347
	%v349 = mul i32 %v337, 32
	%v350 = add i32 %v348, %v349
	%v351 = mul i32 %v350, 2
	%v352 = add i32 %v341, %v351
	%v353 = lshr i32 %v340, 1
	%v354 = and i32 %v353, 3
	%v355 = lshr i32 %v339, 3
	%v356 = xor i32 %v355, %v354
	%v357 = shl i32 %v356, 3
	%v358 = and i32 %v339, 7
	%v359 = or i32 %v357, %v358
	%v360 = mul i32 %v340, 32
	%v361 = add i32 %v359, %v360
	%v362 = mul i32 %v361, 2
	%v363 = add i32 u0x1000, %v362
	%v364 = add i32 %v341, %v363
	%v365 = add i32 %v339, 16
	%v366 = lshr i32 %v340, 1
	%v367 = and i32 %v366, 3
	%v368 = lshr i32 %v365, 3
	%v369 = xor i32 %v368, %v367
	%v370 = shl i32 %v369, 3
	%v371 = and i32 %v365, 7
	%v372 = or i32 %v370, %v371
	%v373 = mul i32 %v340, 32
	%v374 = add i32 %v372, %v373
	%v375 = mul i32 %v374, 2
	%v376 = add i32 u0x1000, %v375
	%v377 = add i32 %v341, %v376
	%v378 = add i32 %v336, 16
	%v379 = lshr i32 %v337, 1
	%v380 = and i32 %v379, 3
	%v381 = lshr i32 %v378, 3
	%v382 = xor i32 %v381, %v380
	%v383 = shl i32 %v382, 3
	%v384 = and i32 %v378, 7
	%v385 = or i32 %v383, %v384
	%v386 = mul i32 %v337, 32
	%v387 = add i32 %v385, %v386
	%v388 = mul i32 %v387, 2
	%v389 = add i32 %v341, %v388
	%v390 = add i32 %v340, 16
	%v391 = lshr i32 %v390, 1
	%v392 = and i32 %v391, 3
	%v393 = lshr i32 %v339, 3
	%v394 = xor i32 %v393, %v392
	%v395 = shl i32 %v394, 3
	%v396 = and i32 %v339, 7
	%v397 = or i32 %v395, %v396
	%v398 = mul i32 %v390, 32
	%v399 = add i32 %v397, %v398
	%v400 = mul i32 %v399, 2
	%v401 = add i32 u0x1000, %v400
	%v402 = add i32 %v341, %v401
	%v403 = add i32 %v340, 16
	%v404 = add i32 %v339, 16
	%v405 = lshr i32 %v403, 1
	%v406 = and i32 %v405, 3
	%v407 = lshr i32 %v404, 3
	%v408 = xor i32 %v407, %v406
	%v409 = shl i32 %v408, 3
	%v410 = and i32 %v404, 7
	%v411 = or i32 %v409, %v410
	%v412 = mul i32 %v403, 32
	%v413 = add i32 %v411, %v412
	%v414 = mul i32 %v413, 2
	%v415 = add i32 u0x1000, %v414
	%v416 = add i32 %v341, %v415
	%v417 = lshr i32 %v1, 2
	%v418 = and i32 %v417, 7
	%v419 = and i32 %v2, 3
	%v420 = shl i32 %v419, 4
	%v421 = or i32 %v418, %v420
	%v422 = and i32 %v1, 3
	%v423 = shl i32 %v422, 1
	%v424 = mul i32 %v421, 34
	%v425 = add i32 %v424, %v423
	%v426 = mul i32 %v425, 2
	%v427 = zext i32 %v426 to i64
	%v428 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v427
	%v429 = mul i32 %v6, 34
	%v430 = add i32 %v429, %v7
	%v431 = mul i32 %v430, 2
	%v432 = zext i32 %v431 to i64
	%v433 = getelementptr inbounds [0 x i8], [0 x i8] addrspace(3)* @global_smem, i64 0, i64 %v432
	br label %body

body:
	%v434 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
	%v435 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
	%v436 = mul i32 %v434, 64
	%v437 = add i32 %v3, 4
	%v438 = add i32 %v3, 8
	%v439 = add i32 %v3, 12
	%v440 = add i32 %v3, 16
	%v441 = add i32 %v3, 20
	%v442 = add i32 %v3, 24
	%v443 = add i32 %v3, 28
	%v444 = add i32 %v3, 32
	%v445 = add i32 %v3, 36
	%v446 = add i32 %v3, 40
	%v447 = add i32 %v3, 44
	%v448 = add i32 %v3, 48
	%v449 = add i32 %v3, 52
	%v450 = add i32 %v3, 56
	%v451 = add i32 %v3, 60
	%v452 = add i32 %v436, %v3
	%v453 = add i32 %v436, %v437
	%v454 = add i32 %v436, %v438
	%v455 = add i32 %v436, %v439
	%v456 = add i32 %v436, %v440
	%v457 = add i32 %v436, %v441
	%v458 = add i32 %v436, %v442
	%v459 = add i32 %v436, %v443
	%v460 = add i32 %v436, %v444
	%v461 = add i32 %v436, %v445
	%v462 = add i32 %v436, %v446
	%v463 = add i32 %v436, %v447
	%v464 = add i32 %v436, %v448
	%v465 = add i32 %v436, %v449
	%v466 = add i32 %v436, %v450
	%v467 = add i32 %v436, %v451
	%v468 = mul i32 %v435, 32
	%v469 = add i32 %v4, 4
	%v470 = add i32 %v4, 8
	%v471 = add i32 %v4, 12
	%v472 = add i32 %v4, 16
	%v473 = add i32 %v4, 20
	%v474 = add i32 %v4, 24
	%v475 = add i32 %v4, 28
	%v476 = add i32 %v468, %v5
	br label %bb1

bb1:
	%v477 = phi i32 [ 0, %body ], [ %v816, %bb2 ]
	%v478 = phi float [ 0.0, %body ], [ %v792, %bb2 ]
	%v479 = phi float [ 0.0, %body ], [ %v793, %bb2 ]
	%v480 = phi float [ 0.0, %body ], [ %v794, %bb2 ]
	%v481 = phi float [ 0.0, %body ], [ %v795, %bb2 ]
	%v482 = phi float [ 0.0, %body ], [ %v797, %bb2 ]
	%v483 = phi float [ 0.0, %body ], [ %v798, %bb2 ]
	%v484 = phi float [ 0.0, %body ], [ %v799, %bb2 ]
	%v485 = phi float [ 0.0, %body ], [ %v800, %bb2 ]
	%v486 = phi float [ 0.0, %body ], [ %v807, %bb2 ]
	%v487 = phi float [ 0.0, %body ], [ %v808, %bb2 ]
	%v488 = phi float [ 0.0, %body ], [ %v809, %bb2 ]
	%v489 = phi float [ 0.0, %body ], [ %v810, %bb2 ]
	%v490 = phi float [ 0.0, %body ], [ %v812, %bb2 ]
	%v491 = phi float [ 0.0, %body ], [ %v813, %bb2 ]
	%v492 = phi float [ 0.0, %body ], [ %v814, %bb2 ]
	%v493 = phi float [ 0.0, %body ], [ %v815, %bb2 ]
	%v494 = icmp slt i32 %v477, %K
	br i1 %v494, label %bb2, label %bb3

bb2:
	%v495 = add i32 %v477, %v4
	%v496 = add i32 %v477, %v469
	%v497 = add i32 %v477, %v470
	%v498 = add i32 %v477, %v471
	%v499 = add i32 %v477, %v472
	%v500 = add i32 %v477, %v473
	%v501 = add i32 %v477, %v474
	%v502 = add i32 %v477, %v475
	%v503 = add i32 %v477, %v5
	%v504 = mul i32 %v452, %K
	%v505 = mul i32 %v453, %K
	%v506 = mul i32 %v454, %K
	%v507 = mul i32 %v455, %K
	%v508 = mul i32 %v456, %K
	%v509 = mul i32 %v457, %K
	%v510 = mul i32 %v458, %K
	%v511 = mul i32 %v459, %K
	%v512 = mul i32 %v460, %K
	%v513 = mul i32 %v461, %K
	%v514 = mul i32 %v462, %K
	%v515 = mul i32 %v463, %K
	%v516 = mul i32 %v464, %K
	%v517 = mul i32 %v465, %K
	%v518 = mul i32 %v466, %K
	%v519 = mul i32 %v467, %K
	%v520 = sext i32 %v504 to i64
	%v521 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v520
	%v522 = sext i32 %v505 to i64
	%v523 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v522
	%v524 = sext i32 %v506 to i64
	%v525 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v524
	%v526 = sext i32 %v507 to i64
	%v527 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v526
	%v528 = sext i32 %v508 to i64
	%v529 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v528
	%v530 = sext i32 %v509 to i64
	%v531 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v530
	%v532 = sext i32 %v510 to i64
	%v533 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v532
	%v534 = sext i32 %v511 to i64
	%v535 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v534
	%v536 = sext i32 %v512 to i64
	%v537 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v536
	%v538 = sext i32 %v513 to i64
	%v539 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v538
	%v540 = sext i32 %v514 to i64
	%v541 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v540
	%v542 = sext i32 %v515 to i64
	%v543 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v542
	%v544 = sext i32 %v516 to i64
	%v545 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v544
	%v546 = sext i32 %v517 to i64
	%v547 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v546
	%v548 = sext i32 %v518 to i64
	%v549 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v548
	%v550 = sext i32 %v519 to i64
	%v551 = getelementptr inbounds i16, i16 addrspace(1)* %a, i64 %v550
	%v552 = sext i32 %v503 to i64
	%v553 = getelementptr inbounds i16, i16 addrspace(1)* %v521, i64 %v552
	%v554 = sext i32 %v503 to i64
	%v555 = getelementptr inbounds i16, i16 addrspace(1)* %v523, i64 %v554
	%v556 = sext i32 %v503 to i64
	%v557 = getelementptr inbounds i16, i16 addrspace(1)* %v525, i64 %v556
	%v558 = sext i32 %v503 to i64
	%v559 = getelementptr inbounds i16, i16 addrspace(1)* %v527, i64 %v558
	%v560 = sext i32 %v503 to i64
	%v561 = getelementptr inbounds i16, i16 addrspace(1)* %v529, i64 %v560
	%v562 = sext i32 %v503 to i64
	%v563 = getelementptr inbounds i16, i16 addrspace(1)* %v531, i64 %v562
	%v564 = sext i32 %v503 to i64
	%v565 = getelementptr inbounds i16, i16 addrspace(1)* %v533, i64 %v564
	%v566 = sext i32 %v503 to i64
	%v567 = getelementptr inbounds i16, i16 addrspace(1)* %v535, i64 %v566
	%v568 = sext i32 %v503 to i64
	%v569 = getelementptr inbounds i16, i16 addrspace(1)* %v537, i64 %v568
	%v570 = sext i32 %v503 to i64
	%v571 = getelementptr inbounds i16, i16 addrspace(1)* %v539, i64 %v570
	%v572 = sext i32 %v503 to i64
	%v573 = getelementptr inbounds i16, i16 addrspace(1)* %v541, i64 %v572
	%v574 = sext i32 %v503 to i64
	%v575 = getelementptr inbounds i16, i16 addrspace(1)* %v543, i64 %v574
	%v576 = sext i32 %v503 to i64
	%v577 = getelementptr inbounds i16, i16 addrspace(1)* %v545, i64 %v576
	%v578 = sext i32 %v503 to i64
	%v579 = getelementptr inbounds i16, i16 addrspace(1)* %v547, i64 %v578
	%v580 = sext i32 %v503 to i64
	%v581 = getelementptr inbounds i16, i16 addrspace(1)* %v549, i64 %v580
	%v582 = sext i32 %v503 to i64
	%v583 = getelementptr inbounds i16, i16 addrspace(1)* %v551, i64 %v582
	%v584 = icmp slt i32 %v452, %M
	%v585 = icmp slt i32 %v453, %M
	%v586 = icmp slt i32 %v454, %M
	%v587 = icmp slt i32 %v455, %M
	%v588 = icmp slt i32 %v456, %M
	%v589 = icmp slt i32 %v457, %M
	%v590 = icmp slt i32 %v458, %M
	%v591 = icmp slt i32 %v459, %M
	%v592 = icmp slt i32 %v460, %M
	%v593 = icmp slt i32 %v461, %M
	%v594 = icmp slt i32 %v462, %M
	%v595 = icmp slt i32 %v463, %M
	%v596 = icmp slt i32 %v464, %M
	%v597 = icmp slt i32 %v465, %M
	%v598 = icmp slt i32 %v466, %M
	%v599 = icmp slt i32 %v467, %M
	%v600 = icmp slt i32 %v495, %K
	%v601 = icmp slt i32 %v496, %K
	%v602 = icmp slt i32 %v497, %K
	%v603 = icmp slt i32 %v498, %K
	%v604 = icmp slt i32 %v499, %K
	%v605 = icmp slt i32 %v500, %K
	%v606 = icmp slt i32 %v501, %K
	%v607 = icmp slt i32 %v502, %K
	%v608 = icmp slt i32 %v503, %K
	%v609 = and i1 %v584, %v608
	%v610 = and i1 %v585, %v608
	%v611 = and i1 %v586, %v608
	%v612 = and i1 %v587, %v608
	%v613 = and i1 %v588, %v608
	%v614 = and i1 %v589, %v608
	%v615 = and i1 %v590, %v608
	%v616 = and i1 %v591, %v608
	%v617 = and i1 %v592, %v608
	%v618 = and i1 %v593, %v608
	%v619 = and i1 %v594, %v608
	%v620 = and i1 %v595, %v608
	%v621 = and i1 %v596, %v608
	%v622 = and i1 %v597, %v608
	%v623 = and i1 %v598, %v608
	%v624 = and i1 %v599, %v608
	%v625 = zext i1 %v609 to i32
	%v626 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v553, i32 %v625, i16 0)
	%v627 = zext i1 %v610 to i32
	%v628 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v555, i32 %v627, i16 0)
	%v629 = zext i1 %v611 to i32
	%v630 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v557, i32 %v629, i16 0)
	%v631 = zext i1 %v612 to i32
	%v632 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v559, i32 %v631, i16 0)
	%v633 = zext i1 %v613 to i32
	%v634 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v561, i32 %v633, i16 0)
	%v635 = zext i1 %v614 to i32
	%v636 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v563, i32 %v635, i16 0)
	%v637 = zext i1 %v615 to i32
	%v638 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v565, i32 %v637, i16 0)
	%v639 = zext i1 %v616 to i32
	%v640 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v567, i32 %v639, i16 0)
	%v641 = zext i1 %v617 to i32
	%v642 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v569, i32 %v641, i16 0)
	%v643 = zext i1 %v618 to i32
	%v644 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v571, i32 %v643, i16 0)
	%v645 = zext i1 %v619 to i32
	%v646 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v573, i32 %v645, i16 0)
	%v647 = zext i1 %v620 to i32
	%v648 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v575, i32 %v647, i16 0)
	%v649 = zext i1 %v621 to i32
	%v650 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v577, i32 %v649, i16 0)
	%v651 = zext i1 %v622 to i32
	%v652 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v579, i32 %v651, i16 0)
	%v653 = zext i1 %v623 to i32
	%v654 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v581, i32 %v653, i16 0)
	%v655 = zext i1 %v624 to i32
	%v656 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v583, i32 %v655, i16 0)
	%v657 = mul i32 %v495, %N
	%v658 = mul i32 %v496, %N
	%v659 = mul i32 %v497, %N
	%v660 = mul i32 %v498, %N
	%v661 = mul i32 %v499, %N
	%v662 = mul i32 %v500, %N
	%v663 = mul i32 %v501, %N
	%v664 = mul i32 %v502, %N
	%v665 = sext i32 %v657 to i64
	%v666 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v665
	%v667 = sext i32 %v658 to i64
	%v668 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v667
	%v669 = sext i32 %v659 to i64
	%v670 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v669
	%v671 = sext i32 %v660 to i64
	%v672 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v671
	%v673 = sext i32 %v661 to i64
	%v674 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v673
	%v675 = sext i32 %v662 to i64
	%v676 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v675
	%v677 = sext i32 %v663 to i64
	%v678 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v677
	%v679 = sext i32 %v664 to i64
	%v680 = getelementptr inbounds i16, i16 addrspace(1)* %b, i64 %v679
	%v681 = sext i32 %v476 to i64
	%v682 = getelementptr inbounds i16, i16 addrspace(1)* %v666, i64 %v681
	%v683 = sext i32 %v476 to i64
	%v684 = getelementptr inbounds i16, i16 addrspace(1)* %v668, i64 %v683
	%v685 = sext i32 %v476 to i64
	%v686 = getelementptr inbounds i16, i16 addrspace(1)* %v670, i64 %v685
	%v687 = sext i32 %v476 to i64
	%v688 = getelementptr inbounds i16, i16 addrspace(1)* %v672, i64 %v687
	%v689 = sext i32 %v476 to i64
	%v690 = getelementptr inbounds i16, i16 addrspace(1)* %v674, i64 %v689
	%v691 = sext i32 %v476 to i64
	%v692 = getelementptr inbounds i16, i16 addrspace(1)* %v676, i64 %v691
	%v693 = sext i32 %v476 to i64
	%v694 = getelementptr inbounds i16, i16 addrspace(1)* %v678, i64 %v693
	%v695 = sext i32 %v476 to i64
	%v696 = getelementptr inbounds i16, i16 addrspace(1)* %v680, i64 %v695
	%v697 = icmp slt i32 %v476, %N
	%v698 = and i1 %v600, %v697
	%v699 = and i1 %v601, %v697
	%v700 = and i1 %v602, %v697
	%v701 = and i1 %v603, %v697
	%v702 = and i1 %v604, %v697
	%v703 = and i1 %v605, %v697
	%v704 = and i1 %v606, %v697
	%v705 = and i1 %v607, %v697
	%v706 = zext i1 %v698 to i32
	%v707 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v682, i32 %v706, i16 0)
	%v708 = zext i1 %v699 to i32
	%v709 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v684, i32 %v708, i16 0)
	%v710 = zext i1 %v700 to i32
	%v711 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v686, i32 %v710, i16 0)
	%v712 = zext i1 %v701 to i32
	%v713 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v688, i32 %v712, i16 0)
	%v714 = zext i1 %v702 to i32
	%v715 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v690, i32 %v714, i16 0)
	%v716 = zext i1 %v703 to i32
	%v717 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v692, i32 %v716, i16 0)
	%v718 = zext i1 %v704 to i32
	%v719 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v694, i32 %v718, i16 0)
	%v720 = zext i1 %v705 to i32
	%v721 = call i16 asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $2, 0;\0A\09mov.b16 $0, $3;\0A\09@%p ld.global.b16 $0, [$1];\0A}", "=h,l,r,h"(i16 addrspace(1)* %v696, i32 %v720, i16 0)
	call void @llvm.nvvm.barrier0()
	%v722 = bitcast i8 addrspace(3)* %v19 to i16 addrspace(3)*
	store i16 %v626, i16 addrspace(3)* %v722, align 2
	%v723 = bitcast i8 addrspace(3)* %v32 to i16 addrspace(3)*
	store i16 %v628, i16 addrspace(3)* %v723, align 2
	%v724 = bitcast i8 addrspace(3)* %v45 to i16 addrspace(3)*
	store i16 %v630, i16 addrspace(3)* %v724, align 2
	%v725 = bitcast i8 addrspace(3)* %v58 to i16 addrspace(3)*
	store i16 %v632, i16 addrspace(3)* %v725, align 2
	%v726 = bitcast i8 addrspace(3)* %v71 to i16 addrspace(3)*
	store i16 %v634, i16 addrspace(3)* %v726, align 2
	%v727 = bitcast i8 addrspace(3)* %v84 to i16 addrspace(3)*
	store i16 %v636, i16 addrspace(3)* %v727, align 2
	%v728 = bitcast i8 addrspace(3)* %v97 to i16 addrspace(3)*
	store i16 %v638, i16 addrspace(3)* %v728, align 2
	%v729 = bitcast i8 addrspace(3)* %v110 to i16 addrspace(3)*
	store i16 %v640, i16 addrspace(3)* %v729, align 2
	%v730 = bitcast i8 addrspace(3)* %v123 to i16 addrspace(3)*
	store i16 %v642, i16 addrspace(3)* %v730, align 2
	%v731 = bitcast i8 addrspace(3)* %v136 to i16 addrspace(3)*
	store i16 %v644, i16 addrspace(3)* %v731, align 2
	%v732 = bitcast i8 addrspace(3)* %v149 to i16 addrspace(3)*
	store i16 %v646, i16 addrspace(3)* %v732, align 2
	%v733 = bitcast i8 addrspace(3)* %v162 to i16 addrspace(3)*
	store i16 %v648, i16 addrspace(3)* %v733, align 2
	%v734 = bitcast i8 addrspace(3)* %v175 to i16 addrspace(3)*
	store i16 %v650, i16 addrspace(3)* %v734, align 2
	%v735 = bitcast i8 addrspace(3)* %v188 to i16 addrspace(3)*
	store i16 %v652, i16 addrspace(3)* %v735, align 2
	%v736 = bitcast i8 addrspace(3)* %v201 to i16 addrspace(3)*
	store i16 %v654, i16 addrspace(3)* %v736, align 2
	%v737 = bitcast i8 addrspace(3)* %v214 to i16 addrspace(3)*
	store i16 %v656, i16 addrspace(3)* %v737, align 2
	%v738 = bitcast i8 addrspace(3)* %v229 to i16 addrspace(3)*
	store i16 %v707, i16 addrspace(3)* %v738, align 2
	%v739 = bitcast i8 addrspace(3)* %v243 to i16 addrspace(3)*
	store i16 %v709, i16 addrspace(3)* %v739, align 2
	%v740 = bitcast i8 addrspace(3)* %v257 to i16 addrspace(3)*
	store i16 %v711, i16 addrspace(3)* %v740, align 2
	%v741 = bitcast i8 addrspace(3)* %v271 to i16 addrspace(3)*
	store i16 %v713, i16 addrspace(3)* %v741, align 2
	%v742 = bitcast i8 addrspace(3)* %v285 to i16 addrspace(3)*
	store i16 %v715, i16 addrspace(3)* %v742, align 2
	%v743 = bitcast i8 addrspace(3)* %v299 to i16 addrspace(3)*
	store i16 %v717, i16 addrspace(3)* %v743, align 2
	%v744 = bitcast i8 addrspace(3)* %v313 to i16 addrspace(3)*
	store i16 %v719, i16 addrspace(3)* %v744, align 2
	%v745 = bitcast i8 addrspace(3)* %v327 to i16 addrspace(3)*
	store i16 %v721, i16 addrspace(3)* %v745, align 2
	call void @llvm.nvvm.barrier0()
	%v746 = call { i32, i32, i32, i32 } asm sideeffect "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r,~{memory}"(i32 %v352)
	%v747 = extractvalue { i32, i32, i32, i32 } %v746, 0
	%v748 = extractvalue { i32, i32, i32, i32 } %v746, 1
	%v749 = extractvalue { i32, i32, i32, i32 } %v746, 2
	%v750 = extractvalue { i32, i32, i32, i32 } %v746, 3
	%v751 = call { i32, i32, i32, i32 } asm sideeffect "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r,~{memory}"(i32 %v364)
	%v752 = extractvalue { i32, i32, i32, i32 } %v751, 0
	%v753 = extractvalue { i32, i32, i32, i32 } %v751, 1
	%v754 = extractvalue { i32, i32, i32, i32 } %v751, 2
	%v755 = extractvalue { i32, i32, i32, i32 } %v751, 3
	%v756 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v747, i32 %v748, i32 %v749, i32 %v750, i32 %v752, i32 %v753, float %v478, float %v479, float %v480, float %v481)
	%v757 = extractvalue { float, float, float, float } %v756, 0
	%v758 = extractvalue { float, float, float, float } %v756, 1
	%v759 = extractvalue { float, float, float, float } %v756, 2
	%v760 = extractvalue { float, float, float, float } %v756, 3
	%v761 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v747, i32 %v748, i32 %v749, i32 %v750, i32 %v754, i32 %v755, float %v482, float %v483, float %v484, float %v485)
	%v762 = extractvalue { float, float, float, float } %v761, 0
	%v763 = extractvalue { float, float, float, float } %v761, 1
	%v764 = extractvalue { float, float, float, float } %v761, 2
	%v765 = extractvalue { float, float, float, float } %v761, 3
	%v766 = call { i32, i32, i32, i32 } asm sideeffect "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r,~{memory}"(i32 %v377)
	%v767 = extractvalue { i32, i32, i32, i32 } %v766, 0
	%v768 = extractvalue { i32, i32, i32, i32 } %v766, 1
	%v769 = extractvalue { i32, i32, i32, i32 } %v766, 2
	%v770 = extractvalue { i32, i32, i32, i32 } %v766, 3
	%v771 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v747, i32 %v748, i32 %v749, i32 %v750, i32 %v767, i32 %v768, float %v486, float %v487, float %v488, float %v489)
	%v772 = extractvalue { float, float, float, float } %v771, 0
	%v773 = extractvalue { float, float, float, float } %v771, 1
	%v774 = extractvalue { float, float, float, float } %v771, 2
	%v775 = extractvalue { float, float, float, float } %v771, 3
	%v776 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v747, i32 %v748, i32 %v749, i32 %v750, i32 %v769, i32 %v770, float %v490, float %v491, float %v492, float %v493)
	%v777 = extractvalue { float, float, float, float } %v776, 0
	%v778 = extractvalue { float, float, float, float } %v776, 1
	%v779 = extractvalue { float, float, float, float } %v776, 2
	%v780 = extractvalue { float, float, float, float } %v776, 3
	%v781 = call { i32, i32, i32, i32 } asm sideeffect "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r,~{memory}"(i32 %v389)
	%v782 = extractvalue { i32, i32, i32, i32 } %v781, 0
	%v783 = extractvalue { i32, i32, i32, i32 } %v781, 1
	%v784 = extractvalue { i32, i32, i32, i32 } %v781, 2
	%v785 = extractvalue { i32, i32, i32, i32 } %v781, 3
	%v786 = call { i32, i32, i32, i32 } asm sideeffect "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r,~{memory}"(i32 %v402)
	%v787 = extractvalue { i32, i32, i32, i32 } %v786, 0
	%v788 = extractvalue { i32, i32, i32, i32 } %v786, 1
	%v789 = extractvalue { i32, i32, i32, i32 } %v786, 2
	%v790 = extractvalue { i32, i32, i32, i32 } %v786, 3
	%v791 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v782, i32 %v783, i32 %v784, i32 %v785, i32 %v787, i32 %v788, float %v757, float %v758, float %v759, float %v760)
	%v792 = extractvalue { float, float, float, float } %v791, 0
	%v793 = extractvalue { float, float, float, float } %v791, 1
	%v794 = extractvalue { float, float, float, float } %v791, 2
	%v795 = extractvalue { float, float, float, float } %v791, 3
	%v796 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v782, i32 %v783, i32 %v784, i32 %v785, i32 %v789, i32 %v790, float %v762, float %v763, float %v764, float %v765)
	%v797 = extractvalue { float, float, float, float } %v796, 0
	%v798 = extractvalue { float, float, float, float } %v796, 1
	%v799 = extractvalue { float, float, float, float } %v796, 2
	%v800 = extractvalue { float, float, float, float } %v796, 3
	%v801 = call { i32, i32, i32, i32 } asm sideeffect "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r,~{memory}"(i32 %v416)
	%v802 = extractvalue { i32, i32, i32, i32 } %v801, 0
	%v803 = extractvalue { i32, i32, i32, i32 } %v801, 1
	%v804 = extractvalue { i32, i32, i32, i32 } %v801, 2
	%v805 = extractvalue { i32, i32, i32, i32 } %v801, 3
	%v806 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v782, i32 %v783, i32 %v784, i32 %v785, i32 %v802, i32 %v803, float %v772, float %v773, float %v774, float %v775)
	%v807 = extractvalue { float, float, float, float } %v806, 0
	%v808 = extractvalue { float, float, float, float } %v806, 1
	%v809 = extractvalue { float, float, float, float } %v806, 2
	%v810 = extractvalue { float, float, float, float } %v806, 3
	%v811 = call { float, float, float, float } asm "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"(i32 %v782, i32 %v783, i32 %v784, i32 %v785, i32 %v804, i32 %v805, float %v777, float %v778, float %v779, float %v780)
	%v812 = extractvalue { float, float, float, float } %v811, 0
	%v813 = extractvalue { float, float, float, float } %v811, 1
	%v814 = extractvalue { float, float, float, float } %v811, 2
	%v815 = extractvalue { float, float, float, float } %v811, 3
	%v816 = add i32 %v477, 32
	br label %bb1

bb3:
	%v817 = mul i32 %v452, %N
	%v818 = mul i32 %v453, %N
	%v819 = mul i32 %v454, %N
	%v820 = mul i32 %v455, %N
	%v821 = mul i32 %v456, %N
	%v822 = mul i32 %v457, %N
	%v823 = mul i32 %v458, %N
	%v824 = mul i32 %v459, %N
	%v825 = mul i32 %v460, %N
	%v826 = mul i32 %v461, %N
	%v827 = mul i32 %v462, %N
	%v828 = mul i32 %v463, %N
	%v829 = mul i32 %v464, %N
	%v830 = mul i32 %v465, %N
	%v831 = mul i32 %v466, %N
	%v832 = mul i32 %v467, %N
	%v833 = sext i32 %v817 to i64
	%v834 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v833
	%v835 = sext i32 %v818 to i64
	%v836 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v835
	%v837 = sext i32 %v819 to i64
	%v838 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v837
	%v839 = sext i32 %v820 to i64
	%v840 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v839
	%v841 = sext i32 %v821 to i64
	%v842 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v841
	%v843 = sext i32 %v822 to i64
	%v844 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v843
	%v845 = sext i32 %v823 to i64
	%v846 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v845
	%v847 = sext i32 %v824 to i64
	%v848 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v847
	%v849 = sext i32 %v825 to i64
	%v850 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v849
	%v851 = sext i32 %v826 to i64
	%v852 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v851
	%v853 = sext i32 %v827 to i64
	%v854 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v853
	%v855 = sext i32 %v828 to i64
	%v856 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v855
	%v857 = sext i32 %v829 to i64
	%v858 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v857
	%v859 = sext i32 %v830 to i64
	%v860 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v859
	%v861 = sext i32 %v831 to i64
	%v862 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v861
	%v863 = sext i32 %v832 to i64
	%v864 = getelementptr inbounds i16, i16 addrspace(1)* %c, i64 %v863
	%v865 = sext i32 %v476 to i64
	%v866 = getelementptr inbounds i16, i16 addrspace(1)* %v834, i64 %v865
	%v867 = sext i32 %v476 to i64
	%v868 = getelementptr inbounds i16, i16 addrspace(1)* %v836, i64 %v867
	%v869 = sext i32 %v476 to i64
	%v870 = getelementptr inbounds i16, i16 addrspace(1)* %v838, i64 %v869
	%v871 = sext i32 %v476 to i64
	%v872 = getelementptr inbounds i16, i16 addrspace(1)* %v840, i64 %v871
	%v873 = sext i32 %v476 to i64
	%v874 = getelementptr inbounds i16, i16 addrspace(1)* %v842, i64 %v873
	%v875 = sext i32 %v476 to i64
	%v876 = getelementptr inbounds i16, i16 addrspace(1)* %v844, i64 %v875
	%v877 = sext i32 %v476 to i64
	%v878 = getelementptr inbounds i16, i16 addrspace(1)* %v846, i64 %v877
	%v879 = sext i32 %v476 to i64
	%v880 = getelementptr inbounds i16, i16 addrspace(1)* %v848, i64 %v879
	%v881 = sext i32 %v476 to i64
	%v882 = getelementptr inbounds i16, i16 addrspace(1)* %v850, i64 %v881
	%v883 = sext i32 %v476 to i64
	%v884 = getelementptr inbounds i16, i16 addrspace(1)* %v852, i64 %v883
	%v885 = sext i32 %v476 to i64
	%v886 = getelementptr inbounds i16, i16 addrspace(1)* %v854, i64 %v885
	%v887 = sext i32 %v476 to i64
	%v888 = getelementptr inbounds i16, i16 addrspace(1)* %v856, i64 %v887
	%v889 = sext i32 %v476 to i64
	%v890 = getelementptr inbounds i16, i16 addrspace(1)* %v858, i64 %v889
	%v891 = sext i32 %v476 to i64
	%v892 = getelementptr inbounds i16, i16 addrspace(1)* %v860, i64 %v891
	%v893 = sext i32 %v476 to i64
	%v894 = getelementptr inbounds i16, i16 addrspace(1)* %v862, i64 %v893
	%v895 = sext i32 %v476 to i64
	%v896 = getelementptr inbounds i16, i16 addrspace(1)* %v864, i64 %v895
	call void @llvm.nvvm.barrier0()
	%v897 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v479, float %v478)
	%v898 = bitcast i8 addrspace(3)* %v428 to i32 addrspace(3)*
	store i32 %v897, i32 addrspace(3)* %v898, align 4
	%v899 = getelementptr inbounds i8, i8 addrspace(3)* %v428, i32 544
	%v900 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v481, float %v480)
	%v901 = bitcast i8 addrspace(3)* %v899 to i32 addrspace(3)*
	store i32 %v900, i32 addrspace(3)* %v901, align 4
	%v902 = getelementptr inbounds i8, i8 addrspace(3)* %v428, i32 16
	%v903 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v483, float %v482)
	%v904 = bitcast i8 addrspace(3)* %v902 to i32 addrspace(3)*
	store i32 %v903, i32 addrspace(3)* %v904, align 4
	%v905 = getelementptr inbounds i8, i8 addrspace(3)* %v428, i32 560
	%v906 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v485, float %v484)
	%v907 = bitcast i8 addrspace(3)* %v905 to i32 addrspace(3)*
	store i32 %v906, i32 addrspace(3)* %v907, align 4
	%v908 = getelementptr inbounds i8, i8 addrspace(3)* %v428, i32 32
	%v909 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v487, float %v486)
	%v910 = bitcast i8 addrspace(3)* %v908 to i32 addrspace(3)*
	store i32 %v909, i32 addrspace(3)* %v910, align 4
	%v911 = getelementptr inbounds i8, i8 addrspace(3)* %v428, i32 576
	%v912 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v489, float %v488)
	%v913 = bitcast i8 addrspace(3)* %v911 to i32 addrspace(3)*
	store i32 %v912, i32 addrspace(3)* %v913, align 4
	%v914 = getelementptr inbounds i8, i8 addrspace(3)* %v428, i32 48
	%v915 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v491, float %v490)
	%v916 = bitcast i8 addrspace(3)* %v914 to i32 addrspace(3)*
	store i32 %v915, i32 addrspace(3)* %v916, align 4
	%v917 = getelementptr inbounds i8, i8 addrspace(3)* %v428, i32 592
	%v918 = call i32 asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f"(float %v493, float %v492)
	%v919 = bitcast i8 addrspace(3)* %v917 to i32 addrspace(3)*
	store i32 %v918, i32 addrspace(3)* %v919, align 4
	call void @llvm.nvvm.barrier0()
	%v920 = bitcast i8 addrspace(3)* %v433 to i16 addrspace(3)*
	%v921 = load i16, i16 addrspace(3)* %v920, align 2
	%v922 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 272
	%v923 = bitcast i8 addrspace(3)* %v922 to i16 addrspace(3)*
	%v924 = load i16, i16 addrspace(3)* %v923, align 2
	%v925 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 544
	%v926 = bitcast i8 addrspace(3)* %v925 to i16 addrspace(3)*
	%v927 = load i16, i16 addrspace(3)* %v926, align 2
	%v928 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 816
	%v929 = bitcast i8 addrspace(3)* %v928 to i16 addrspace(3)*
	%v930 = load i16, i16 addrspace(3)* %v929, align 2
	%v931 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 1088
	%v932 = bitcast i8 addrspace(3)* %v931 to i16 addrspace(3)*
	%v933 = load i16, i16 addrspace(3)* %v932, align 2
	%v934 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 1360
	%v935 = bitcast i8 addrspace(3)* %v934 to i16 addrspace(3)*
	%v936 = load i16, i16 addrspace(3)* %v935, align 2
	%v937 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 1632
	%v938 = bitcast i8 addrspace(3)* %v937 to i16 addrspace(3)*
	%v939 = load i16, i16 addrspace(3)* %v938, align 2
	%v940 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 1904
	%v941 = bitcast i8 addrspace(3)* %v940 to i16 addrspace(3)*
	%v942 = load i16, i16 addrspace(3)* %v941, align 2
	%v943 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 2176
	%v944 = bitcast i8 addrspace(3)* %v943 to i16 addrspace(3)*
	%v945 = load i16, i16 addrspace(3)* %v944, align 2
	%v946 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 2448
	%v947 = bitcast i8 addrspace(3)* %v946 to i16 addrspace(3)*
	%v948 = load i16, i16 addrspace(3)* %v947, align 2
	%v949 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 2720
	%v950 = bitcast i8 addrspace(3)* %v949 to i16 addrspace(3)*
	%v951 = load i16, i16 addrspace(3)* %v950, align 2
	%v952 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 2992
	%v953 = bitcast i8 addrspace(3)* %v952 to i16 addrspace(3)*
	%v954 = load i16, i16 addrspace(3)* %v953, align 2
	%v955 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 3264
	%v956 = bitcast i8 addrspace(3)* %v955 to i16 addrspace(3)*
	%v957 = load i16, i16 addrspace(3)* %v956, align 2
	%v958 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 3536
	%v959 = bitcast i8 addrspace(3)* %v958 to i16 addrspace(3)*
	%v960 = load i16, i16 addrspace(3)* %v959, align 2
	%v961 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 3808
	%v962 = bitcast i8 addrspace(3)* %v961 to i16 addrspace(3)*
	%v963 = load i16, i16 addrspace(3)* %v962, align 2
	%v964 = getelementptr inbounds i8, i8 addrspace(3)* %v433, i32 4080
	%v965 = bitcast i8 addrspace(3)* %v964 to i16 addrspace(3)*
	%v966 = load i16, i16 addrspace(3)* %v965, align 2
	%v967 = icmp slt i32 %v452, %M
	%v968 = icmp slt i32 %v453, %M
	%v969 = icmp slt i32 %v454, %M
	%v970 = icmp slt i32 %v455, %M
	%v971 = icmp slt i32 %v456, %M
	%v972 = icmp slt i32 %v457, %M
	%v973 = icmp slt i32 %v458, %M
	%v974 = icmp slt i32 %v459, %M
	%v975 = icmp slt i32 %v460, %M
	%v976 = icmp slt i32 %v461, %M
	%v977 = icmp slt i32 %v462, %M
	%v978 = icmp slt i32 %v463, %M
	%v979 = icmp slt i32 %v464, %M
	%v980 = icmp slt i32 %v465, %M
	%v981 = icmp slt i32 %v466, %M
	%v982 = icmp slt i32 %v467, %M
	%v983 = icmp slt i32 %v476, %N
	%v984 = and i1 %v967, %v983
	%v985 = and i1 %v968, %v983
	%v986 = and i1 %v969, %v983
	%v987 = and i1 %v970, %v983
	%v988 = and i1 %v971, %v983
	%v989 = and i1 %v972, %v983
	%v990 = and i1 %v973, %v983
	%v991 = and i1 %v974, %v983
	%v992 = and i1 %v975, %v983
	%v993 = and i1 %v976, %v983
	%v994 = and i1 %v977, %v983
	%v995 = and i1 %v978, %v983
	%v996 = and i1 %v979, %v983
	%v997 = and i1 %v980, %v983
	%v998 = and i1 %v981, %v983
	%v999 = and i1 %v982, %v983
	%v1000 = zext i1 %v984 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v866, i32 %v1000, i16 %v921)
	%v1001 = zext i1 %v985 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v868, i32 %v1001, i16 %v924)
	%v1002 = zext i1 %v986 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v870, i32 %v1002, i16 %v927)
	%v1003 = zext i1 %v987 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v872, i32 %v1003, i16 %v930)
	%v1004 = zext i1 %v988 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v874, i32 %v1004, i16 %v933)
	%v1005 = zext i1 %v989 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v876, i32 %v1005, i16 %v936)
	%v1006 = zext i1 %v990 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v878, i32 %v1006, i16 %v939)
	%v1007 = zext i1 %v991 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v880, i32 %v1007, i16 %v942)
	%v1008 = zext i1 %v992 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v882, i32 %v1008, i16 %v945)
	%v1009 = zext i1 %v993 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v884, i32 %v1009, i16 %v948)
	%v1010 = zext i1 %v994 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v886, i32 %v1010, i16 %v951)
	%v1011 = zext i1 %v995 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v888, i32 %v1011, i16 %v954)
	%v1012 = zext i1 %v996 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v890, i32 %v1012, i16 %v957)
	%v1013 = zext i1 %v997 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v892, i32 %v1013, i16 %v960)
	%v1014 = zext i1 %v998 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v894, i32 %v1014, i16 %v963)
	%v1015 = zext i1 %v999 to i32
	call void asm sideeffect "{\0A\09.reg .pred %p;\0A\09setp.ne.b32 %p, $1, 0;\0A\09@%p st.global.b16 [$0], $2;\0A}", "l,r,h"(i16 addrspace(1)* %v896, i32 %v1015, i16 %v966)
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()

declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0, !1}

!0 = !{void (i16 addrspace(1)*, i16 addrspace(1)*, i16 addrspace(1)*, i32, i32, i32)* @matmul, !"kernel", i32 1}
!1 = !{void (i16 addrspace(1)*, i16 addrspace(1)*, i16 addrspace(1)*, i32, i32, i32)* @matmul, !"maxntidx", i32 128}
