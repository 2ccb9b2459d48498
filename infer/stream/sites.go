package stream

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
)

// siteStore holds the EP sites of all examples on disk: for example k with
// non-zeros j₁..j_s, the 2s numbers (λ_kj, η_kj) — the natural parameters
// of its factorised site g_k(w) = Π_j exp(−½ λ_kj w_j² + η_kj w_j) —
// written in example order as little-endian float64. A pass reads the old
// sites from one file and writes the new ones to another, then they swap:
// memory stays O(buffer) whatever the number of examples, at 16 bytes of
// disk per stored non-zero in each of the two files. Sites of coordinates outside an example's
// non-zeros are exactly 1 (the factor does not depend on them), so nothing
// else needs storing.
type siteStore struct {
	dir        string
	in, out    *os.File
	r          *bufio.Reader
	w          *bufio.Writer
	first      bool // the first pass: every old site is 1 (λ = η = 0)
	buf        []byte
	read, save bool
}

func newSiteStore(dir string) (*siteStore, error) {
	in, err := os.CreateTemp(dir, "fg-ep-sites-*")
	if err != nil {
		return nil, fmt.Errorf("stream: site file: %v", err)
	}
	out, err := os.CreateTemp(dir, "fg-ep-sites-*")
	if err != nil {
		removeFile(in)
		return nil, fmt.Errorf("stream: site file: %v", err)
	}
	return &siteStore{dir: dir, in: in, out: out, first: true}, nil
}

// begin starts a pass; save reports whether this pass's sites are needed
// later (not the last pass).
func (s *siteStore) begin(save bool) error {
	s.read, s.save = !s.first, save
	if s.read {
		if _, err := s.in.Seek(0, io.SeekStart); err != nil {
			return err
		}
		s.r = bufio.NewReaderSize(s.in, 1<<20)
	}
	if s.save {
		if _, err := s.out.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if err := s.out.Truncate(0); err != nil {
			return err
		}
		s.w = bufio.NewWriterSize(s.out, 1<<20)
	}
	return nil
}

// load fills lam and eta with the example's old sites.
func (s *siteStore) load(lam, eta []float64) error {
	if !s.read {
		clear(lam)
		clear(eta)
		return nil
	}
	n := 16 * len(lam)
	s.buf = slicesGrow(s.buf, n)
	if _, err := io.ReadFull(s.r, s.buf[:n]); err != nil {
		return fmt.Errorf("stream: site file: %v (did the data change between passes?)", err)
	}
	for k := range lam {
		lam[k] = math.Float64frombits(binary.LittleEndian.Uint64(s.buf[16*k:]))
		eta[k] = math.Float64frombits(binary.LittleEndian.Uint64(s.buf[16*k+8:]))
	}
	return nil
}

// store appends the example's new sites.
func (s *siteStore) store(lam, eta []float64) error {
	if !s.save {
		return nil
	}
	n := 16 * len(lam)
	s.buf = slicesGrow(s.buf, n)
	for k := range lam {
		binary.LittleEndian.PutUint64(s.buf[16*k:], math.Float64bits(lam[k]))
		binary.LittleEndian.PutUint64(s.buf[16*k+8:], math.Float64bits(eta[k]))
	}
	_, err := s.w.Write(s.buf[:n])
	return err
}

// end finishes a pass: the sites written become the ones read next.
func (s *siteStore) end() error {
	if s.save {
		if err := s.w.Flush(); err != nil {
			return fmt.Errorf("stream: site file: %v", err)
		}
		s.in, s.out = s.out, s.in
		s.first = false
	}
	return nil
}

func (s *siteStore) close() {
	removeFile(s.in)
	removeFile(s.out)
}

func removeFile(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}

func slicesGrow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}
