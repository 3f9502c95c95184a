package rocketmqgo

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// readmeLayout returns the paths named (in backquotes) in the first column of the README's
// "## Layout" table.
func readmeLayout(t *testing.T) []string {
	t.Helper()
	text, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(text), "\n## Layout\n")
	require.True(t, ok, "README has a Layout section")
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	code := regexp.MustCompile("`([^`]+)`")
	var paths []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| ") || len(cells) < 3 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			paths = append(paths, m[1])
		}
	}
	require.NotEmpty(t, paths)
	return paths
}

// TestReadmeLayoutMatchesPackages keeps the README's layout table in step with the tree: every
// path it names exists, and every package directory under mq/ is in it.
func TestReadmeLayoutMatchesPackages(t *testing.T) {
	listed := map[string]bool{}
	for _, p := range readmeLayout(t) {
		listed[strings.TrimSuffix(p, "/")] = true
		_, err := os.Stat(filepath.FromSlash(strings.TrimSuffix(p, "/")))
		require.NoError(t, err, "the README's layout table names %s", p)
	}
	var missing []string
	err := filepath.WalkDir("mq", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		goFiles, _ := filepath.Glob(filepath.Join(path, "*.go"))
		if len(goFiles) > 0 && !listed[filepath.ToSlash(path)] {
			missing = append(missing, filepath.ToSlash(path))
		}
		return nil
	})
	require.NoError(t, err)
	sort.Strings(missing)
	require.Empty(t, missing, "packages missing from the README's layout table")
}
