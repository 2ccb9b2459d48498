package pipeline

import (
	"encoding/json"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fg-infer/fg/families"
	"github.com/fg-infer/fg/infer"
	"github.com/fg-infer/fg/infer/shard"
)

// wireNat is a families.GaussianDense on the wire (JSON): the full row-major d×d
// precision and the shift. JSON keeps every float64 exactly (shortest
// round-trip formatting), so the Beam pipeline and the in-process algorithm
// see bit-identical numbers.
type wireNat struct {
	Prec  []float64 `json:"prec"`
	Shift []float64 `json:"shift"`
}

func toWire(g families.GaussianDense) wireNat {
	if g.Prec == nil {
		return wireNat{}
	}
	d := g.Dim()
	w := wireNat{Prec: make([]float64, d*d), Shift: append([]float64(nil), g.Shift...)}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			w.Prec[i*d+j] = g.Prec.At(i, j)
		}
	}
	return w
}

func (w wireNat) natural() (families.GaussianDense, error) {
	d := len(w.Shift)
	if d == 0 && len(w.Prec) == 0 {
		return families.GaussianDense{}, nil
	}
	if len(w.Prec) != d*d {
		return families.GaussianDense{}, fmt.Errorf("fg-beam: natural parameters with %d precision entries for dimension %d", len(w.Prec), d)
	}
	p := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			p.SetSym(i, j, w.Prec[i*d+j])
		}
	}
	return families.GaussianDense{Prec: p, Shift: append([]float64(nil), w.Shift...)}, nil
}

// state is the side input of one iteration: the global posterior and every
// shard's current site, keyed by the shard's path.
type state struct {
	Global wireNat            `json:"global"`
	Sites  map[string]wireNat `json:"sites"`
}

// update is one shard's output: its path and shard.Update on the wire.
type update struct {
	Path       string      `json:"path"`
	Site       wireNat     `json:"site"`
	Proposal   wireNat     `json:"proposal"`
	Cavity     wireNat     `json:"cavity"`
	LogZ       float64     `json:"logz"`
	HasLogZ    bool        `json:"has_logz"`
	SkipReason string      `json:"skipped,omitempty"`
	Stats      infer.Stats `json:"stats"`
}

func encodeUpdate(path string, u *shard.Update) (string, error) {
	b, err := json.Marshal(update{Path: path, Site: toWire(u.Site), Proposal: toWire(u.Proposal),
		Cavity: toWire(u.Cavity), LogZ: u.LogZ, HasLogZ: u.HasLogZ, SkipReason: u.SkipReason, Stats: u.Stats})
	return string(b), err
}

func (w update) shardUpdate() (*shard.Update, error) {
	var u shard.Update
	var err error
	for _, f := range []struct {
		dst *families.GaussianDense
		src wireNat
	}{{&u.Site, w.Site}, {&u.Proposal, w.Proposal}, {&u.Cavity, w.Cavity}} {
		if *f.dst, err = f.src.natural(); err != nil {
			return nil, err
		}
	}
	u.LogZ, u.HasLogZ, u.SkipReason, u.Stats = w.LogZ, w.HasLogZ, w.SkipReason, w.Stats
	return &u, nil
}
