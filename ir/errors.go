package ir

import (
	"errors"
	"fmt"

	"github.com/tlego/tle/diag"
)

// PosError is an error about an op, at the op's .tle position. Passes and
// the backend return it so that the driver can print FILE:LINE:COL with an
// excerpt (Diagnose).
type PosError struct {
	Pos  diag.Pos
	Kind Kind
	Msg  string
}

func (e *PosError) Error() string {
	if e.Kind != "" {
		return fmt.Sprintf("%s at %v: %s", e.Kind, e.Pos, e.Msg)
	}
	return fmt.Sprintf("at %v: %s", e.Pos, e.Msg)
}

// ErrorAt builds a PosError for op (which may be nil).
func ErrorAt(op *Op, format string, args ...any) error {
	e := &PosError{Pos: diag.NoPos, Msg: fmt.Sprintf(format, args...)}
	if op != nil {
		e.Pos, e.Kind = op.Pos, op.Kind
	}
	return e
}

// Diagnose turns a PosError found in err's chain into a diagnostic in file
// (wrapping context is kept in the message); other errors come back as they
// are.
func Diagnose(file *diag.File, err error) error {
	var pe *PosError
	if err == nil || file == nil || !errors.As(err, &pe) || !pe.Pos.IsValid() {
		return err
	}
	msg := pe.Msg
	if pe.Kind != "" {
		msg = string(pe.Kind) + ": " + msg
	}
	return &diag.Diagnostic{File: file, Pos: pe.Pos, End: diag.NoPos, Msg: msg}
}
