// Package safefile reads the files a model names (model sources, imports,
// csv and libDAI files, --data and --test paths) without letting an input
// exhaust memory: a file that is not a regular file or a named pipe
// (/dev/zero, a directory, a socket) is refused before anything is read,
// and no more than a stated number of bytes is ever read, whatever the
// file claims to hold.
package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Limits on what fg reads from one file.
const (
	// MaxSource bounds a model file, an import or a libDAI file as read.
	MaxSource = 64 << 20
	// MaxModel bounds the fg source of one model or import (the parser
	// needs about 360 bytes per byte of a data-laden literal: 4 MiB peaks
	// at 1.5 GB); larger data belongs in csv files.
	MaxModel = 4 << 20
	// MaxData bounds a csv file.
	MaxData = 512 << 20
	// MaxLibDAI bounds a libDAI factor-graph file. Its reader streams the
	// tokens and bounds what they size itself (the factor budget of a
	// graph: graph.MaxFactors, and the table entries), so the text may be
	// larger than a model: a 1000×1000 Ising grid of 3·10⁶ factors is about
	// 250 MB of text.
	MaxLibDAI = 1 << 30
)

// ErrTooLarge is wrapped by the error returned for a file over the limit.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads the file at name in fsys (the operating system's files
// when fsys is nil), refusing special files and files of more than limit
// bytes.
func ReadFile(fsys fs.FS, name string, limit int64) ([]byte, error) {
	r, err := Open(fsys, name, limit)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// ReadModel reads a model file: at most MaxSource bytes, or MaxLibDAI when
// the text is a libDAI factor-graph file (isLibDAI of its first MaxSource
// bytes), with the checks of ReadFile.
func ReadModel(fsys fs.FS, name string, isLibDAI func(head []byte) bool) ([]byte, error) {
	r, err := Open(fsys, name, MaxLibDAI)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	src, err := io.ReadAll(io.LimitReader(r, MaxSource+1))
	if err != nil || len(src) <= MaxSource {
		return src, err
	}
	if !isLibDAI(src) {
		return nil, tooLarge(MaxSource)
	}
	var b bytes.Buffer
	b.Write(src)
	_, err = b.ReadFrom(r)
	return b.Bytes(), err
}

// ReadModelOrLibDAI is ReadModel for a caller that streams libDAI files:
// when the file's first 64 KiB are a libDAI factor-graph file's start
// (isLibDAI), nothing more is read and libdai is true (src nil); the
// caller opens the file again and reads it as a stream (graph.ParseLibDAI),
// so that its text, hundreds of MB for a large grid, is never held. A named
// pipe, which cannot be read twice, is read whole as by ReadModel, and so
// is a libDAI file whose first 64 KiB are comments.
func ReadModelOrLibDAI(fsys fs.FS, name string, isLibDAI func(head []byte) bool) (src []byte, libdai bool, err error) {
	var st fs.FileInfo
	if fsys == nil {
		st, err = os.Stat(name)
	} else {
		st, err = fs.Stat(fsys, name)
	}
	if err == nil && st.Mode().IsRegular() {
		r, err := Open(fsys, name, MaxLibDAI)
		if err != nil {
			return nil, false, err
		}
		head := make([]byte, 64<<10)
		n, err := io.ReadFull(r, head)
		r.Close()
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return nil, false, err
		}
		if isLibDAI(head[:n]) {
			return nil, true, nil
		}
	}
	src, err = ReadModel(fsys, name, isLibDAI)
	return src, false, err
}

// Open opens the file at name for reading with the checks of ReadFile; the
// reader fails with an error wrapping ErrTooLarge once more than limit
// bytes have been read.
func Open(fsys fs.FS, name string, limit int64) (io.ReadCloser, error) {
	f, st, err := OpenRegular(fsys, name)
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		f.Close()
		return nil, tooLarge(limit)
	}
	return &limited{f: f, left: limit, limit: limit}, nil
}

// OpenRegular opens the regular file at name in fsys (the operating
// system's files when nil) and returns it with its FileInfo. Anything else
// — a directory, a device, a socket, a FIFO — is refused from a stat of
// the path before it is opened: opening a FIFO blocks until a writer
// comes, and a device may never end. The opened file is checked again (the
// path may have changed in between).
func OpenRegular(fsys fs.FS, name string) (fs.File, fs.FileInfo, error) {
	var st fs.FileInfo
	var err error
	if fsys == nil {
		st, err = os.Stat(name)
	} else {
		st, err = fs.Stat(fsys, name)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := check(st); err != nil {
		return nil, nil, err
	}
	var f fs.File
	if fsys == nil {
		f, err = os.Open(name)
	} else {
		f, err = fsys.Open(name)
	}
	if err != nil {
		return nil, nil, err
	}
	if st, err = f.Stat(); err == nil {
		err = check(st)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// check refuses what cannot be a model or data file: anything but a
// regular file.
func check(st fs.FileInfo) error {
	mode := st.Mode()
	switch {
	case mode.IsDir():
		return errors.New("is a directory, not a regular file")
	case !mode.IsRegular():
		return fmt.Errorf("not a regular file (%s); fg reads models and data from regular files", kind(mode))
	}
	return nil
}

func kind(mode fs.FileMode) string {
	switch {
	case mode&os.ModeCharDevice != 0:
		return "a character device"
	case mode&os.ModeDevice != 0:
		return "a device"
	case mode&os.ModeSocket != 0:
		return "a socket"
	case mode&os.ModeNamedPipe != 0:
		return "a FIFO or pipe"
	}
	return "mode " + mode.String()
}

func tooLarge(limit int64) error {
	return fmt.Errorf("%w: fg reads at most %d MiB from one file", ErrTooLarge, limit>>20)
}

// limited reads at most left bytes, then reports the file as too large.
type limited struct {
	f     fs.File
	left  int64
	limit int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more tells a file of exactly the limit from a longer one.
		var one [1]byte
		if n, _ := l.f.Read(one[:]); n > 0 {
			return 0, tooLarge(l.limit)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.f.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limited) Close() error { return l.f.Close() }
