package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// modulePath is the module line go.mod holds at the repository root.
const modulePath = "github.com/annotated-rocketmq/rocketmq-go"

// stepLine matches a step line of a chapter's golden file, "[component] NN Label k=v ...",
// and captures the label.
var stepLine = regexp.MustCompile(`^\[[^\]]+\] \d+ (\S+)`)

// chapterMap is, for every step label the chapters' golden traces hold, the chapter
// ("ch03") of the first golden file that holds it.
type chapterMap map[string]string

// findRoot returns the repository root: the first directory, from dir upwards, whose go.mod
// declares this module. It fails when dir is outside the repository.
func findRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.Contains(string(data), "module "+modulePath+"\n") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of %s above %s: run the tour inside the repository", modulePath, dir)
		}
	}
}

// loadChapters reads the golden files of the chapters under root (chNN-*/testdata/*.golden)
// in chapter order and gives each step label the chapter of the first file that holds it. It
// fails when no chapter's golden file is found.
func loadChapters(root string) (chapterMap, error) {
	files, err := filepath.Glob(filepath.Join(root, "ch[0-9][0-9]-*", "testdata", "*.golden"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no chapter golden file under %s", root)
	}
	sort.Strings(files) // ch01-… before ch02-…: the directory names start with the chapter number
	m := chapterMap{}
	for _, f := range files {
		chapter := filepath.Base(filepath.Dir(filepath.Dir(f)))[:4]
		if err := m.addGolden(f, chapter); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// addGolden adds the labels of one golden file that no earlier chapter holds.
func (m chapterMap) addGolden(path, chapter string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if g := stepLine.FindStringSubmatch(sc.Text()); g != nil {
			if _, ok := m[g[1]]; !ok {
				m[g[1]] = chapter
			}
		}
	}
	return sc.Err()
}

// unknownChapter stands in a line for a label no chapter's golden file holds (the tour's test
// fails on it).
const unknownChapter = "ch??"

// filter is what the tour keeps of the steps that reach it.
type filter struct {
	// topics are the topics the tour's messages live in: a step about any other topic (a retry
	// topic a consumer subscribes to on its own, say) is left out.
	topics map[string]bool
	// once are labels printed the first time only: steps that add nothing new when the next
	// message takes the same path (the put's checks, the heartbeats).
	once map[string]bool
}

// keeps reports whether a step with label and attrs belongs in the tour, given what the tour
// printed so far (st.shown) and whether it is inside a flow about another topic (st.skipping).
// A step naming a topic of its own decides by that topic and starts or ends such a flow; a
// step naming none belongs to the flow it is in (the queue allocation after a retry topic's
// rebalanceByTopic, the lock of its queue). It updates st.skipping. The caller holds st.mu.
func (f filter) keeps(label string, attrs []slog.Attr, st *tourState) bool {
	for _, a := range attrs {
		if a.Key == "topic" {
			st.skipping = !f.topics[a.Value.String()]
			break
		}
	}
	if st.skipping {
		return false
	}
	return !(f.once[label] && st.shown[label])
}

// tourState is what every handler derived from one tourHandler shares.
type tourState struct {
	mu       sync.Mutex // one line at a time: the prefix and the printer's write go together
	chapters chapterMap
	filter   filter
	shown    map[string]bool // labels printed so far
	skipping bool            // inside a flow about a topic the tour leaves out
	out      *prefixWriter
	printer  slog.Handler // the chapters' printer, writing through out
}

// tourHandler is the tour's slog.Handler: it keeps the steps of the tour's messages (filter),
// and prints each through the chapters' trace.Printer with the chapter its label belongs to
// in front: "ch03 [broker-a] 12 DefaultAppendMessageCallback#doAppend ...". Records at other
// levels go to the printer unchanged.
type tourHandler struct {
	st      *tourState
	printer slog.Handler
	attrs   []slog.Attr
}

// newTourHandler prints to w; chapters names each label's chapter, f chooses the steps.
func newTourHandler(w io.Writer, chapters chapterMap, f filter) *tourHandler {
	out := &prefixWriter{w: w}
	p := trace.NewPrinter(out, slog.LevelError)
	return &tourHandler{st: &tourState{chapters: chapters, filter: f, shown: map[string]bool{}, out: out, printer: p}, printer: p}
}

// Enabled implements slog.Handler.
func (h *tourHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.printer.Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (h *tourHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level != trace.LevelStep {
		return h.printer.Handle(ctx, r)
	}
	attrs := append([]slog.Attr(nil), h.attrs...)
	r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a); return true })
	st := h.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.filter.keeps(r.Message, attrs, st) {
		return nil
	}
	st.shown[r.Message] = true
	chapter, ok := st.chapters[r.Message]
	if !ok {
		chapter = unknownChapter
	}
	st.out.prefix = chapter + " "
	defer func() { st.out.prefix = "" }()
	return h.printer.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h *tourHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &tourHandler{st: h.st, printer: h.printer.WithAttrs(attrs), attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

// WithGroup implements slog.Handler; groups are flattened, as the printer does.
func (h *tourHandler) WithGroup(string) slog.Handler { return h }

// prefixWriter writes prefix before each write (the printer writes a step line in one write).
// The tourState's mutex guards prefix.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

// Write implements io.Writer.
func (p *prefixWriter) Write(b []byte) (int, error) {
	if p.prefix != "" {
		if _, err := io.WriteString(p.w, p.prefix); err != nil {
			return 0, err
		}
	}
	return p.w.Write(b)
}
