//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRefusesFIFO: a FIFO with no writer is refused from a stat of its
// path, at once — opening it would block until a writer comes (the test
// would then hang, not fail: the open runs on its own goroutine and the
// test waits for it at most 20 s).
func TestRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(nil, p, MaxSource)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file (a FIFO or pipe)") {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
	if _, _, err := OpenRegular(os.DirFS(filepath.Dir(p)), "fifo"); err == nil {
		t.Error("FIFO through an fs.FS: no error")
	}
}
