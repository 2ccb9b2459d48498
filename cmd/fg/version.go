package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/fg-infer/fg/internal/openblas"
)

const versionUsage = "fg version"

// readBuildInfo is debug.ReadBuildInfo; tests substitute it.
var readBuildInfo = debug.ReadBuildInfo

// version prints the module version and VCS revision from the build info
// (`go version -m` shows the same): "(devel)" for a build from a checkout,
// the tag for `go install …@vX.Y.Z`.
func (e *env) version(args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return e.usageError(versionUsage, "%v", err)
	}
	if len(pos) != 0 {
		return e.usageError(versionUsage, "version takes no arguments")
	}
	info, ok := readBuildInfo()
	if !ok {
		fmt.Fprintln(e.stderr, "fg: the binary carries no build information")
		return exitError
	}
	writeVersion(e.stdout, info)
	return exitOK
}

// writeVersion writes "fg VERSION" and the module, revision, commit time
// and toolchain lines of info, and the dense linear algebra of the build
// (gonum, or openblas for go build -tags openblas).
func writeVersion(w io.Writer, info *debug.BuildInfo) {
	set := map[string]string{}
	for _, s := range info.Settings {
		set[s.Key] = s.Value
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	fmt.Fprintf(w, "fg %s\n", v)
	if info.Main.Path != "" {
		fmt.Fprintf(w, "module    %s\n", info.Main.Path)
	}
	rev := set["vcs.revision"]
	switch {
	case rev == "":
		rev = "unknown (built without VCS information: go run, go test or -buildvcs=false)"
	case set["vcs.modified"] == "true":
		rev += " (modified)"
	}
	fmt.Fprintf(w, "revision  %s\n", rev)
	if t := set["vcs.time"]; t != "" {
		fmt.Fprintf(w, "committed %s\n", t)
	}
	fmt.Fprintf(w, "go        %s %s/%s\n", info.GoVersion, set["GOOS"], set["GOARCH"])
	fmt.Fprintf(w, "blas      %s\n", openblas.Backend)
}
