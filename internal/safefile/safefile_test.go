package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestRefusesSpecialFiles(t *testing.T) {
	for _, name := range []string{"/dev/zero", "/dev/null", t.TempDir()} {
		if _, err := ReadFile(nil, name, MaxSource); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
	_, err := ReadFile(nil, "/dev/zero", MaxSource)
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a character device)") {
		t.Errorf("/dev/zero: %v", err)
	}
}

func TestLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(nil, p, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("exactly the limit: %q, %v", b, err)
	}
	if _, err := ReadFile(nil, p, 9); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	// A reader over the limit fails even when the size was not known upfront.
	r := &limited{f: mustOpen(t, p), left: 4, limit: 4}
	buf := make([]byte, 100)
	n, err := r.Read(buf)
	if n != 4 || err != nil {
		t.Fatalf("first read: %d %v", n, err)
	}
	if _, err := r.Read(buf); !errors.Is(err, ErrTooLarge) {
		t.Errorf("second read: %v", err)
	}
}

func TestFS(t *testing.T) {
	fsys := fstest.MapFS{"a.fg": {Data: []byte("model a")}, "d": {Mode: os.ModeDir}}
	if b, err := ReadFile(fsys, "a.fg", MaxSource); err != nil || string(b) != "model a" {
		t.Errorf("a.fg: %q %v", b, err)
	}
	if _, err := ReadFile(fsys, "nosuch", MaxSource); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("nosuch: %v", err)
	}
}

func mustOpen(t *testing.T, p string) *os.File {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
