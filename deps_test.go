package rocketmqgo

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/annotated-rocketmq/rocketmq-go"

// layers holds the design's dependency direction as data: a package may import only packages of
// a strictly lower layer (or its own package). Keys are package paths relative to the module
// root, or path.Match patterns over them ("ch??-*"); a pattern matches whole path elements only,
// so "mq/broker" never covers "mq/brokerx". Every key must match a package that exists
// (TestLayersNameExistingPackages): a rule for a package still to come is added with it.
var layers = map[string]int{
	"mq/trace":               0,
	"mq/primitive":           0,
	"mq/clock":               0,
	"mq/internal/conf":       0,
	"mq/internal/service":    0,
	"mq/internal/configfile": 0,
	"mq/internal/fastjson":   0,
	"mq/internal/exercise":   0,
	"mq/internal/startup":    2, // ServerKeys.ApplyTo fills a remoting.ServerConfig
	"mq/acl":                 1,
	"mq/metrics":             1, // Prometheus collectors; the broker and the name server feed it
	"mq/trace/tracetest":     1,
	"mq/remoting":            1,
	"mq/store":               1,
	"mq/remoting/protocol":   2,
	"mq/store/schedule":      2,
	"mq/store/ha":            2,
	"mq/broker/transaction":  2,
	"mq/namesrv":             3,
	"mq/broker":              3,
	"mq/client":              3,
	"mq/client/producer":     4,
	"mq/client/consumer":     4,
	"mq/admin":               5,
	"mq/bench":               5, // the benchmark load: client/producer and client/consumer
	"mq/admin/command":       6,
	"mq/embedded":            6,
	"mq/dashboard":           6, // the web console: admin's operations, the trace hub, a test producer
	"mq/mqtest":              7,
	"mq/cmd/broker":          8,
	"mq/cmd/namesrv":         8,
	"mq/cmd/mqadmin":         8,
	"mq/cmd/mqbench":         8,
	"mq/interop":             8,
	"ch??-*":                 8,
	"examples/quickstart":    8,
	"tutorial":               8,
	"tutorial/tour":          8,
	"bench":                  8, // the side-by-side harness, a module of its own (bench/go.mod)
	".":                      8,

	// Test helpers that packages above them use in their tests (test files are not checked).
	"mq/remoting/remotingtest":  3,
	"mq/internal/conf/conftest": 0,
	"mq/client/clienttest":      7,
}

// forbidden pairs the design calls out by name, beyond the layer order. The test kit
// (mq/mqtest) serves chapters and tests only: the binaries, the only production code above
// it, must not use it.
var forbidden = map[string][]string{
	"mq/store":       {"mq/remoting", "mq/remoting/protocol", "mq/broker"},
	"mq/client":      {"mq/broker", "mq/store", "mq/namesrv"},
	"mq/cmd/broker":  {"mq/mqtest"},
	"mq/cmd/namesrv": {"mq/mqtest"},
	"mq/cmd/mqadmin": {"mq/mqtest"},
	"mq/cmd/mqbench": {"mq/mqtest"},
}

// layerOf returns the layer of pkg: an exact key first, then the first pattern that matches
// (patterns are checked in sorted order, so the answer never depends on map order).
func layerOf(pkg string) (int, bool) {
	if l, ok := layers[pkg]; ok {
		return l, true
	}
	keys := make([]string, 0, len(layers))
	for k := range layers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if ok, _ := path.Match(k, pkg); ok {
			return layers[k], true
		}
	}
	return 0, false
}

// TestLayering fails when an import breaks the design's dependency direction: every package of
// the module must be listed in a layer, and import only from lower layers.
func TestLayering(t *testing.T) {
	fset := token.NewFileSet()
	imports := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == "tools.go" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if p == module {
				imports[pkg]["."] = true
			} else if strings.HasPrefix(p, module+"/") {
				imports[pkg][strings.TrimPrefix(p, module+"/")] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, imports)
	for pkg, deps := range imports {
		l, ok := layerOf(pkg)
		require.True(t, ok, "package %s is in no layer: add it to deps_test.go", pkg)
		for dep := range deps {
			dl, ok := layerOf(dep)
			require.True(t, ok, "package %s (imported by %s) is in no layer", dep, pkg)
			require.Less(t, dl, l, "%s (layer %d) must not import %s (layer %d)", pkg, l, dep, dl)
			for _, f := range forbidden[pkg] {
				require.NotEqual(t, f, dep, "%s must not import %s", pkg, dep)
			}
		}
	}
}

func TestLayerOf(t *testing.T) {
	l, _ := layerOf("mq/cmd/broker")
	require.Equal(t, 8, l)
	l, _ = layerOf("ch03-store")
	require.Equal(t, 8, l)
	l, _ = layerOf("mq/mqtest")
	require.Equal(t, 7, l)
	l, _ = layerOf("mq/broker")
	require.Equal(t, 3, l)
	_, ok := layerOf("mq/brokerx")
	require.False(t, ok, "a key matches whole path elements only")
	_, ok = layerOf("mq/broker/schedule")
	require.False(t, ok, "a package not yet listed is in no layer")
	_, ok = layerOf("mq/unknown")
	require.False(t, ok)
}

// TestLayersNameExistingPackages fails when a rule names a package that does not exist, so
// the table describes the tree as it is.
func TestLayersNameExistingPackages(t *testing.T) {
	pkgs := map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			pkgs[filepath.ToSlash(filepath.Dir(p))] = true
		}
		return nil
	})
	require.NoError(t, err)
	for k := range layers {
		found := false
		for p := range pkgs {
			if ok, _ := path.Match(k, p); ok {
				found = true
				break
			}
		}
		require.True(t, found, "deps_test.go names %q, which matches no package of the tree", k)
	}
}
