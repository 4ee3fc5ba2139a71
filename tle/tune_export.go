package tle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/tlego/tle/internal/fileio"
)

// Tuning choices made ahead of time (tlec tune --export), so that a
// deployment's first requests never tune: ExportTuning writes them,
// ImportTuning and the environment variable TLE_TUNE_IMPORT (files
// separated as in PATH) load them, and Kernel.Tune takes an imported
// choice for its kernel source, bucket and device before anything else.

// TuneChoice is one exported choice.
type TuneChoice struct {
	Kernel string           `json:"kernel"`
	Source string           `json:"source"` // the sha256 of the kernel's file, hex
	Bucket string           `json:"bucket"`
	Device string           `json:"device"`
	Config string           `json:"config"` // TuneConfig.ID
	Name   string           `json:"name"`
	Vals   map[string]int64 `json:"vals"`
}

type tuneExport struct {
	Version string       `json:"tle_version"`
	Choices []TuneChoice `json:"choices"`
}

func (k *Kernel) sourceHash() string {
	h := sha256.Sum256(k.prog.src)
	return hex.EncodeToString(h[:])
}

// ExportTuning writes the choices of results, each a tuning of k, to
// path, atomically, adding them to (or replacing, for the same bucket and
// device) the choices already there.
func ExportTuning(path string, k *Kernel, results ...*TuneResult) error {
	var ex tuneExport
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &ex)
	}
	ex.Version = Version
	for _, r := range results {
		c := TuneChoice{Kernel: k.Name(), Source: k.sourceHash(), Bucket: r.Bucket, Device: r.Device,
			Config: r.Winner.ID(), Name: r.Winner.Name, Vals: r.Winner.Vals}
		kept := ex.Choices[:0]
		for _, o := range ex.Choices {
			if o.Kernel != c.Kernel || o.Source != c.Source || o.Bucket != c.Bucket || o.Device != c.Device {
				kept = append(kept, o)
			}
		}
		ex.Choices = append(kept, c)
	}
	if dir := filepath.Dir(path); dir != "" {
		_ = os.MkdirAll(dir, 0o755)
	}
	return fileio.WriteAtomic(path, 0o644, func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(ex)
	})
}

var imported struct {
	sync.Mutex
	envDone bool
	choices []TuneChoice
}

// ImportTuning loads the choices of an exported file for Kernel.Tune.
func ImportTuning(path string) error {
	b, err := fileio.ReadFile(path, 64<<20)
	if err != nil {
		return err
	}
	var ex tuneExport
	if err := json.Unmarshal(b, &ex); err != nil {
		return fmt.Errorf("tune import %s: %v", path, err)
	}
	imported.Lock()
	defer imported.Unlock()
	imported.choices = append(imported.choices, ex.Choices...)
	return nil
}

// importedChoice is the imported choice for k's source and bucket on
// device, when it names a configuration of the space.
func importedChoice(k *Kernel, bucket, device string, s *TuneSpace) (TuneConfig, bool) {
	imported.Lock()
	if !imported.envDone {
		imported.envDone = true
		if env := os.Getenv("TLE_TUNE_IMPORT"); env != "" {
			imported.Unlock()
			for _, p := range filepath.SplitList(env) {
				if err := ImportTuning(p); err != nil {
					tuneLog("TLE_TUNE_IMPORT: %v", err)
				}
			}
			imported.Lock()
		}
	}
	defer imported.Unlock()
	src := k.sourceHash()
	for i := len(imported.choices) - 1; i >= 0; i-- {
		c := imported.choices[i]
		if c.Kernel != k.Name() || c.Source != src || c.Bucket != bucket || c.Device != device {
			continue
		}
		for _, cfg := range s.Configs {
			if cfg.ID() == c.Config {
				return cfg, true
			}
		}
		tuneLog("imported choice %s of %s is not in its space: ignored", c.Config, k.Name())
	}
	return TuneConfig{}, false
}
