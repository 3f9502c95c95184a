package tutorial

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	// mdLink is a Markdown link: [text](target).
	mdLink = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
	// codeIdent is link text naming Go code: `Name` or `Type.Method`.
	codeIdent = regexp.MustCompile("^`([A-Za-z_][A-Za-z0-9_]*)(?:\\.([A-Za-z_][A-Za-z0-9_]*))?`$")
	// repoPath is a backticked path inside the repository: `mq/namesrv/doc.go`.
	repoPath = regexp.MustCompile("`((?:mq|ch[0-9]{2}-[a-z]+|tutorial)/[A-Za-z0-9_./-]+\\.(?:go|golden|md))`")
)

func texts(t *testing.T) []string {
	files, err := filepath.Glob("*.md")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// declared lists what a Go file declares at top level: "Name" for functions, types, vars and
// consts, "Type.Method" for methods.
func declared(t *testing.T, path string) map[string]bool {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	require.NoError(t, err, path)
	names := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				names[d.Name.Name] = true
				continue
			}
			typ := d.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			switch x := typ.(type) {
			case *ast.IndexExpr:
				typ = x.X
			case *ast.IndexListExpr:
				typ = x.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				names[id.Name+"."+d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	return names
}

// Every relative link in the text points at a file that exists, and a link whose text is a Go
// identifier (`RouteInfoManager.RegisterBroker`, `Main`) points at the .go file that declares
// it — so a renamed function or a moved file breaks this test, not the reader.
func TestLinksPointAtCode(t *testing.T) {
	checked := 0
	for _, md := range texts(t) {
		data, err := os.ReadFile(md)
		require.NoError(t, err)
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			text, target := m[1], m[2]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			_, err := os.Stat(target)
			require.NoError(t, err, "%s: link %q points at a missing file", md, m[0])
			id := codeIdent.FindStringSubmatch(text)
			if id == nil || !strings.HasSuffix(target, ".go") {
				continue
			}
			name := id[1]
			if id[2] != "" {
				name += "." + id[2]
			}
			require.True(t, declared(t, target)[name], "%s: %s does not declare %s", md, target, name)
			checked++
		}
	}
	require.Positive(t, checked, "no code links found: has the link form changed?")
}

// Every repository path the text names in backticks exists.
func TestNamedPathsExist(t *testing.T) {
	for _, md := range texts(t) {
		data, err := os.ReadFile(md)
		require.NoError(t, err)
		for _, m := range repoPath.FindAllStringSubmatch(string(data), -1) {
			_, err := os.Stat(filepath.Join("..", m[1]))
			require.NoError(t, err, "%s names %s, which does not exist", md, m[1])
		}
	}
}

// Every line of a ```log block in a chapter's text (chNN-*.md) is a line of its golden file,
// ../chNN-name/testdata/chNN-name.golden, step number included (a reader compares the text with
// the output of `go run ./chNN-name`), so the text quotes what the program prints; the closing
// tour (tour.md) quotes tour/testdata/tour.golden the same way. When a step is added earlier in
// a run, the numbers after it shift: the failure names the line to renumber.
func TestQuotedLogLinesAreInTheGoldenFile(t *testing.T) {
	quoted := 0
	for _, md := range texts(t) {
		chapter := strings.TrimSuffix(md, ".md")
		path := filepath.Join("..", chapter, "testdata", chapter+".golden")
		if chapter == "tour" {
			path = filepath.Join("tour", "testdata", "tour.golden")
		} else if !strings.HasPrefix(chapter, "ch") {
			continue
		}
		golden, err := os.ReadFile(path)
		require.NoError(t, err, "%s has no golden file", md)
		have := map[string]bool{}
		for _, l := range strings.Split(string(golden), "\n") {
			have[l] = true
		}
		data, err := os.ReadFile(md)
		require.NoError(t, err)
		in := false
		for i, l := range strings.Split(string(data), "\n") {
			switch {
			case strings.HasPrefix(l, "```log"):
				in = true
			case strings.HasPrefix(l, "```"):
				in = false
			case in && strings.TrimSpace(l) != "":
				require.True(t, have[l],
					"%s:%d quotes a line the chapter does not print (check its step number):\n%s", md, i+1, l)
				quoted++
			}
		}
	}
	require.Positive(t, quoted)
}
