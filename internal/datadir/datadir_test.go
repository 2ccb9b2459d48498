package datadir

import (
	"os"
	"testing"
)

// TestPathsExist checks that the folders tests read are in the repository.
func TestPathsExist(t *testing.T) {
	for _, p := range [][]string{
		{"classification", "toy2d_train.csv"},
		{"classification", "splits", "spam_train.csv"},
		{"reference", "gpml", "toy2d_se_probit", "summary.tsv"},
		{"reference", "gpml_fitc", "synth_ripley_fitc16", "xu.csv"},
		{"reference", "libdai", "ising_grid4x4_seed1.fg"},
	} {
		if _, err := os.Stat(Path(p...)); err != nil {
			t.Error(err)
		}
	}
}

// TestFromOtherDir finds the folder when the working directory is outside
// the repository (the go.mod walk alone would fail there).
func TestFromOtherDir(t *testing.T) {
	want := Dir()
	t.Chdir(t.TempDir())
	if got := Dir(); got != want {
		t.Errorf("Dir() = %q from a temporary folder, want %q", got, want)
	}
}
