package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// binary is one side of the comparison: the fg binary built at a revision.
type binary struct {
	side  string // "base" or "head"
	label string // what was built: a short commit, or the working tree's
	path  string
}

// build makes the fg binary of rev into out (a file path). An empty rev is
// the working tree of repo as it is, uncommitted changes included; any
// other revision is checked out in a temporary detached worktree, built
// there and removed.
func build(ctx context.Context, repo, rev, out string) (label string, err error) {
	if rev == "" {
		head, err := git(ctx, repo, "rev-parse", "--short", "HEAD")
		if err != nil {
			return "", err
		}
		label = "working tree at " + head
		if st, _ := git(ctx, repo, "status", "--porcelain", "--untracked-files=no"); st != "" {
			label += " with uncommitted changes"
		}
		return label, goBuild(ctx, repo, out)
	}
	if label, err = git(ctx, repo, "rev-parse", "--short", rev+"^{commit}"); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "fg-beforeafter-tree-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	tree := filepath.Join(tmp, "tree")
	if _, err := git(ctx, repo, "worktree", "add", "--detach", tree, label); err != nil {
		return "", err
	}
	defer func() {
		// not ctx: the worktree is removed after an interrupt too
		if _, rerr := git(context.Background(), repo, "worktree", "remove", "--force", tree); rerr != nil && err == nil {
			err = rerr
		}
	}()
	return label, goBuild(ctx, tree, out)
}

// goBuild runs `go build -o out ./cmd/fg` in dir.
func goBuild(ctx context.Context, dir, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/fg")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/fg in %s: %v\n%s", dir, err, msg)
	}
	return nil
}

// git runs git in repo and returns its trimmed standard output.
func git(ctx context.Context, repo string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}
