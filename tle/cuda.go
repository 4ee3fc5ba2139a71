package tle

import (
	"errors"

	"github.com/tlego/tle/runtime/cuda"
)

// CUDA returns the first GPU as a device, or an error saying why there is
// none (no driver, no device).
func CUDA() (Device, error) {
	if err := cuda.Available(); err != nil {
		return nil, err
	}
	return nil, errors.New("the CUDA device is not wired into tle yet (the NVPTX backend is in progress); use --device cpu")
}
