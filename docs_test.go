package rocketmqgo

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The book stands on its own: what a comment or a text cites is in the repository, and every
// package under mq/ says in its doc.go which files it has. These tests keep it so.

var (
	// urlText is a URL, cut out before looking for file names (a link to GitHub may end in .md).
	urlText = regexp.MustCompile(`[a-z][a-z0-9+.-]*://[^\s)>\]]+`)
	// mdName is a cited document: "store-formats.md", "docs/reference/store-formats.md",
	// "../tutorial/README.md".
	mdName = regexp.MustCompile(`(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]+\.md\b`)
	// mdLinkTarget is the target of a markdown link [text](target).
	mdLinkTarget = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// goName is a Go file named in a doc.go file list: "commit_log.go", "../store/doc.go",
	// "mq/client/consumer/rebalance_push.go".
	goName = regexp.MustCompile(`(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]+\.go\b`)
)

// repoFiles lists the repository's files (slash-separated, relative to the root), skipping
// hidden directories.
func repoFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, filepath.ToSlash(p))
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// inRepo reports whether p (slash-separated, relative to the root) stays inside the repository.
func inRepo(p string) bool {
	p = path.Clean(p)
	return p != ".." && !strings.HasPrefix(p, "../")
}

// exists reports whether the repository holds p (relative to the root).
func exists(p string) bool {
	if !inRepo(p) {
		return false
	}
	_, err := os.Stat(filepath.FromSlash(p))
	return err == nil
}

// citedDocuments returns, for each .go and .md file, the documents it cites: in a Go file the
// names in its comments (test files included), in a markdown file the names in its text.
func citedDocuments(t *testing.T, files []string) map[string][]string {
	t.Helper()
	cited := map[string][]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		var text string
		switch {
		case strings.HasSuffix(f, ".go"):
			af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
			require.NoError(t, err)
			var b strings.Builder
			for _, cg := range af.Comments {
				b.WriteString(cg.Text())
				b.WriteByte('\n')
			}
			text = b.String()
		case strings.HasSuffix(f, ".md"):
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			text = string(data)
		default:
			continue
		}
		text = urlText.ReplaceAllString(text, " ")
		cited[f] = mdName.FindAllString(text, -1)
	}
	return cited
}

// TestCitedDocumentsExist: every document a Go comment or a markdown file names (a word ending in .md) is in
// the repository. A bare name must be the name of some file of the repository; a name with a
// directory must exist at that path, from the root ("docs/reference/store-formats.md") or from
// the citing file's directory ("../tutorial/README.md"). A path that, read from the root, leaves
// the repository and is not found from the citing file either is held to the bare-name rule
// here: refusing paths that leave the repository is check-structure's business.
func TestCitedDocumentsExist(t *testing.T) {
	files := repoFiles(t)
	names := map[string]bool{}
	for _, f := range files {
		names[path.Base(f)] = true
	}
	n := 0
	for f, docs := range citedDocuments(t, files) {
		for _, doc := range docs {
			n++
			if !strings.Contains(doc, "/") {
				assert.True(t, names[doc], "%s cites %s, which the repository does not hold", f, doc)
				continue
			}
			fromFile := path.Join(path.Dir(f), doc)
			if exists(doc) || exists(fromFile) {
				continue
			}
			if !inRepo(doc) {
				assert.True(t, names[path.Base(doc)], "%s cites %s, which the repository does not hold", f, doc)
				continue
			}
			assert.Fail(t, "missing document", "%s cites %s, which is neither %s nor %s", f, doc, doc, fromFile)
		}
	}
	require.Positive(t, n, "no citations found: has the pattern changed?")
}

// TestMarkdownLinksStayInTheRepository: every relative link of a markdown file points at a file
// or directory of the repository (a URL or an anchor of the same page is not checked).
func TestMarkdownLinksStayInTheRepository(t *testing.T) {
	n := 0
	for _, f := range repoFiles(t) {
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range mdLinkTarget.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			p := path.Join(path.Dir(f), target)
			if assert.True(t, inRepo(p), "%s links to %s, outside the repository", f, m[1]) {
				assert.True(t, exists(p), "%s links to %s, which does not exist", f, m[1])
			}
			n++
		}
	}
	require.Positive(t, n, "no markdown links found: has the pattern changed?")
}

// packageFiles maps each directory under root that holds Go files to its non-test .go file names.
func packageFiles(files []string, root string) map[string][]string {
	pkgs := map[string][]string{}
	for _, f := range files {
		if !strings.HasPrefix(f, root+"/") || !strings.HasSuffix(f, ".go") || strings.Contains(f, "/testdata/") {
			continue
		}
		dir, name := path.Split(f)
		dir = strings.TrimSuffix(dir, "/")
		if _, ok := pkgs[dir]; !ok {
			pkgs[dir] = nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			pkgs[dir] = append(pkgs[dir], name)
		}
	}
	return pkgs
}

// namesFile reports whether the doc.go text names the file name as a word of its own
// ("store.go" is not named by "restore.go").
func namesFile(doc, name string) bool {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_.-])` + regexp.QuoteMeta(name) + `\b`).MatchString(doc)
}

// TestDocListsMatchPackageFiles: every package under mq/ has a doc.go that names each of its
// non-test .go files, so a reader who opens doc.go knows where everything is.
func TestDocListsMatchPackageFiles(t *testing.T) {
	pkgs := packageFiles(repoFiles(t), "mq")
	require.NotEmpty(t, pkgs)
	var dirs []string
	for dir := range pkgs {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		doc, err := os.ReadFile(filepath.FromSlash(dir + "/doc.go"))
		if !assert.NoError(t, err, "package %s has no doc.go", dir) {
			continue
		}
		for _, name := range pkgs[dir] {
			if name == "doc.go" {
				continue
			}
			assert.True(t, namesFile(string(doc), name), "%s/doc.go does not name %s", dir, name)
		}
	}
}

// TestDocListsNameExistingFiles: a Go file a doc.go names exists — in the package when the name
// is bare, else at that path from the package or from the root — so a file list cannot keep a
// file that was renamed or removed.
func TestDocListsNameExistingFiles(t *testing.T) {
	n := 0
	fset := token.NewFileSet()
	for _, f := range repoFiles(t) {
		if path.Base(f) != "doc.go" {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		require.NoError(t, err)
		dir := path.Dir(f)
		for _, cg := range af.Comments {
			for _, name := range goName.FindAllString(urlText.ReplaceAllString(cg.Text(), " "), -1) {
				n++
				fromPkg := path.Join(dir, name)
				if exists(fromPkg) || (strings.Contains(name, "/") && exists(name)) {
					continue
				}
				assert.Fail(t, "missing file", "%s names %s, which does not exist (looked for %s)", f, name, fromPkg)
			}
		}
	}
	require.Positive(t, n, "no file names found in doc.go files: has the pattern changed?")
}

func TestNamesFile(t *testing.T) {
	doc := "//\tstore.go  the facade\n//\trestore_test.go\n// (see ../store/schedule/doc.go)"
	assert.True(t, namesFile(doc, "store.go"))
	require.False(t, namesFile(doc, "restore.go"))
	require.False(t, namesFile(doc, "tore.go"))
	assert.True(t, namesFile(doc, "doc.go"))
	require.False(t, namesFile(doc, "schedule.go"))
}
