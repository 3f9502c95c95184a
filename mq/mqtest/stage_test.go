package mqtest

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// A stage without a dir makes a temp dir and removes it at Close; one with a dir leaves it.
// Step records reach the output only while the gate is open; Say always does.
func TestStage(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	var out bytes.Buffer
	s, err := NewStage(&out, "", "stage-", false)
	require.NoError(t, err)
	require.DirExists(t, s.Dir)
	require.True(t, strings.HasPrefix(filepath.Base(s.Dir), "stage-"))
	tr := trace.New(s.Logger, "c")
	tr.Step("A#closed")
	s.Gate.Open()
	tr.Step("A#open", slog.Int("k", 1))
	s.Say("said %d", 2)
	s.Close()
	tr.Step("A#afterClose")
	require.NoDirExists(t, s.Dir)
	require.Equal(t, []string{"A#open"}, stepLabels(out.String()))
	require.Contains(t, out.String(), "said 2\n")

	kept := t.TempDir()
	s, err = NewStage(io.Discard, kept, "x-", true)
	require.NoError(t, err)
	s.Close()
	require.DirExists(t, kept)
}

func stepLabels(log string) []string {
	var l []string
	for _, line := range strings.Split(log, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && strings.HasPrefix(f[0], "[") {
			l = append(l, f[2])
		}
	}
	return l
}

// WaitUntil returns once the condition holds, and ErrTimedOut when it never does.
func TestWaitUntil(t *testing.T) {
	n := 0
	require.NoError(t, WaitUntil(time.Second, func() bool { n++; return n == 3 }))
	require.Equal(t, 3, n)
	start := time.Now()
	require.ErrorIs(t, WaitUntil(20*time.Millisecond, func() bool { return false }), ErrTimedOut)
	require.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
}

// Golden with -update writes the file; without, the same run compares equal. The run is
// given a temp dir through withDir.
func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "x.golden")
	run := func(w io.Writer, dir string) error {
		if _, err := os.Stat(dir); err != nil {
			return err
		}
		Say(w, "[c] 01 A#b k=v")
		Say(w, "a table line")
		return nil
	}
	withDir := func(dir string) string { return dir }
	require.NotNil(t, update, "a test binary has the -update flag")
	was := *update
	*update = true
	Golden(t, path, run, withDir)
	*update = was
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "[c] 01 A#b k=v\na table line\n", string(data))
	Golden(t, path, run, withDir)
}

// RunLeavesNoTempDir passes a run that cleans up; the run is given no dir.
func TestRunLeavesNoTempDir(t *testing.T) {
	run := func(w io.Writer, dir string) error {
		if dir != "" {
			return errors.New("a dir was given")
		}
		s, err := NewStage(w, dir, "leaves-", true)
		if err != nil {
			return err
		}
		defer s.Close()
		return os.WriteFile(filepath.Join(s.Dir, "f"), []byte("x"), 0o644)
	}
	RunLeavesNoTempDir(t, run, func(dir string) string { return dir })
}

// Play gives the scene a stage in the dir asked for (the gate open as asked) and closes it
// afterwards; with no dir the temp dir it made is gone, and the scene's error is Play's.
func TestPlay(t *testing.T) {
	kept := t.TempDir()
	var seen *Stage
	var out bytes.Buffer
	require.NoError(t, Play(&out, InDir(kept).Dir, "play", false, func(s *Stage) error {
		seen = s
		require.Equal(t, kept, s.Dir)
		s.Say("scene %d", 1)
		return nil
	}))
	require.Equal(t, "scene 1\n", out.String())
	require.DirExists(t, kept, "a given dir stays")

	boom := errors.New("boom")
	require.ErrorIs(t, Play(io.Discard, "", "play", true, func(s *Stage) error {
		seen = s
		return boom
	}), boom)
	require.NoDirExists(t, seen.Dir, "the temp dir is removed")
	require.Contains(t, filepath.Base(seen.Dir), "play-")
}

// A roster finds members by name in start order, forgets removed ones, and All is a copy.
func TestRoster(t *testing.T) {
	var r Roster[*int]
	a, b, c := new(int), new(int), new(int)
	r.Add("A", a)
	r.Add("B", b)
	r.Add("C", c)
	require.Same(t, b, r.Get("B"))
	require.Nil(t, r.Get("D"))
	r.Remove("B")
	r.Remove("D") // not a member: nothing happens
	all := r.All()
	require.Equal(t, []*int{a, c}, all)
	all[0] = nil
	require.Same(t, a, r.Get("A"), "All returns a copy")
}

// Untraced keeps the steps of f out of the log and opens the gate again after.
func TestStageUntraced(t *testing.T) {
	var buf bytes.Buffer
	s, err := NewStage(&buf, t.TempDir(), "", true)
	require.NoError(t, err)
	defer s.Close()
	s.Untraced(func() { s.Logger.Log(t.Context(), trace.LevelStep, "Hidden#step") })
	s.Logger.Log(t.Context(), trace.LevelStep, "Shown#step")
	require.NotContains(t, buf.String(), "Hidden#step")
	require.Contains(t, buf.String(), "Shown#step")
}

// ClientSetup fills the shared client settings and keeps the defaults it is given no value for.
func TestClientSetup(t *testing.T) {
	pc := ProducerConfig("g", "127.0.0.1:9876", "inst")
	require.Equal(t, "127.0.0.1:9876", pc.NamesrvAddr)
	require.Equal(t, "127.0.0.1", pc.ClientIP)
	require.Equal(t, "inst", pc.InstanceName)
	require.True(t, pc.Options.DisableScheduledTasks)
	require.Equal(t, int32(-1), pc.Options.IndexSeed())
	require.Nil(t, pc.Options.Logger)
	require.Empty(t, pc.Options.TraceName)
}
