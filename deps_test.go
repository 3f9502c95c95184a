package rocketmqgo

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/annotated-rocketmq/rocketmq-go"

// layers holds the design's dependency direction as data: a package may import only packages of
// a strictly lower layer (or its own package). Keys are paths relative to the module root; a
// key ending in "/..." covers every package below it. See ../shared/design.md.
var layers = map[string]int{
	"mq/trace":             0,
	"mq/trace/tracetest":   1,
	"mq/primitive":         0,
	"mq/internal/...":      0,
	"mq/remoting":          1,
	"mq/store":             1,
	"mq/remoting/protocol": 2,
	"mq/store/ha":          2,
	"mq/store/schedule":    2,
	"mq/namesrv":           3,
	"mq/broker/...":        3,
	"mq/client":            3,
	"mq/client/producer":   4,
	"mq/client/consumer":   4,
	"mq/admin":             5,
	"mq/embedded":          6,
	"mq/cmd/...":           7,
	"mq/interop":           7,
	"ch...":                7,
	"examples/...":         7,
	"tutorial":             7,
	".":                    7,
}

// forbidden pairs the design calls out by name, beyond the layer order.
var forbidden = map[string][]string{
	"mq/store":  {"mq/remoting", "mq/remoting/protocol", "mq/broker"},
	"mq/client": {"mq/broker", "mq/store", "mq/namesrv"},
}

func layerOf(pkg string) (int, bool) {
	if l, ok := layers[pkg]; ok {
		return l, true
	}
	best, bestLen := -1, -1
	for k, l := range layers {
		prefix := strings.TrimSuffix(k, "...")
		if !strings.HasSuffix(k, "...") {
			continue
		}
		prefix = strings.TrimSuffix(prefix, "/")
		if (pkg == prefix || strings.HasPrefix(pkg, prefix)) && len(prefix) > bestLen {
			best, bestLen = l, len(prefix)
		}
	}
	return best, best >= 0
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
	require.Equal(t, 7, l)
	l, _ = layerOf("ch03-store")
	require.Equal(t, 7, l)
	l, _ = layerOf("mq/broker/schedule")
	require.Equal(t, 3, l)
	_, ok := layerOf("mq/unknown")
	require.False(t, ok)
}
