package mqtest

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// Stage is what a chapter's run plays its scenario on: one serialized output for the
// scenario's own lines and the step lines of the components it traces, the gate that keeps
// set-up and shutdown out of the log, and the directory the servers keep their files in.
type Stage struct {
	// Out is the run's output; the printer and the scenario write through it.
	Out *trace.SyncWriter
	// Gate passes step records to the printer while open.
	Gate *trace.Gate
	// Logger is the components' logger (step records through Gate).
	Logger *slog.Logger
	// Dir holds the name server's and the brokers' files.
	Dir string

	removeDir bool
	servers   *Servers // started by StartServers, shut down by Close
}

// NewStage prints to w; its gate starts open when open is true. With dir "" it makes a temp
// dir named prefix* that Close removes; otherwise the files stay in dir.
func NewStage(w io.Writer, dir, prefix string, open bool) (*Stage, error) {
	out := &trace.SyncWriter{W: w}
	gate := trace.NewGate(trace.NewPrinter(out, slog.LevelError), open)
	s := &Stage{Out: out, Gate: gate, Logger: slog.New(gate), Dir: dir}
	if dir == "" {
		d, err := os.MkdirTemp("", prefix)
		if err != nil {
			return nil, err
		}
		s.Dir, s.removeDir = d, true
	}
	return s, nil
}

// Say prints one line of the scenario's own (format as fmt.Printf, plus a newline).
func (s *Stage) Say(format string, a ...any) { Say(s.Out, format, a...) }

// StartServers starts the stage's Servers: a name server keeping its files under Dir, and the
// brokers and producers started through them. Close shuts them down.
func (s *Stage) StartServers() (*Servers, error) {
	sv, err := StartServers(s.Dir)
	if err != nil {
		return nil, err
	}
	s.servers = sv
	return sv, nil
}

// Close closes the gate (what follows is not part of the chapter's log), shuts down the
// servers StartServers started and removes the temp dir the stage made. Defer it first, so it
// runs after the scenario's own shutdowns.
func (s *Stage) Close() {
	s.Gate.Close()
	if s.servers != nil {
		s.servers.Shutdown()
	}
	if s.removeDir {
		_ = os.RemoveAll(s.Dir)
	}
}

// Say prints one line to w: format as fmt.Printf, plus a newline.
func Say(w io.Writer, format string, a ...any) {
	fmt.Fprintf(w, format+"\n", a...)
}

// Main is a chapter's main: it runs the scenario on standard output with the zero config (a
// temp dir removed at the end) and exits 1, naming the chapter, if it fails.
func Main[C any](chapter string, run func(w io.Writer, cfg C) error) {
	var zero C
	if err := run(os.Stdout, zero); err != nil {
		fmt.Fprintln(os.Stderr, chapter+":", err)
		os.Exit(1)
	}
}

// Config is what a chapter's run may vary when all it varies is where the files go.
type Config struct {
	// Dir receives the name server's files and each broker's store; "" makes a temp dir that
	// is removed at the end.
	Dir string
}

// InDir is the Config whose files go to dir (the withDir that Golden and RunLeavesNoTempDir take).
func InDir(dir string) Config { return Config{Dir: dir} }

// Play is a chapter's run around its scenario: it sets up a Stage printing to w (its files in
// dir, or in a temp dir named after the chapter; the gate open when open), plays scene on it
// and closes the stage, so set-up errors and clean-up are the kit's, the scene is the chapter's.
func Play(w io.Writer, dir, chapter string, open bool, scene func(*Stage) error) error {
	s, err := NewStage(w, dir, chapter+"-", open)
	if err != nil {
		return err
	}
	defer s.Close() // runs after the scene's own deferred shutdowns
	return scene(s)
}
