package kda

// The test binary runs with internal/testgc's garbage-collector setting.
import _ "github.com/tlego/tle/internal/testgc"
