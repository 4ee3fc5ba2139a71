package attention

import "embed"

// FS holds the attention kernels' .tle sources in their folders (decode/,
// prefill/, paged/), so that decode.tle and prefill.tle import
// "../paged/parts.tle" from it as tlec does from disk.
//
//go:embed decode/*.tle prefill/*.tle paged/*.tle
var FS embed.FS
