package trace

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHubStepsReachWatchersOnlyWhileWatched: steps are off until a watcher subscribes, reach
// every watcher while subscribed, and are off again after the last cancel; the base handler
// keeps its own records throughout and never sees a step.
func TestHubStepsReachWatchersOnlyWhileWatched(t *testing.T) {
	var base bytes.Buffer
	hub := NewHub(slog.NewTextHandler(&base, &slog.HandlerOptions{Level: slog.LevelInfo}))
	tr := New(slog.New(hub), "broker-a")
	require.False(t, tr.Enabled(), "no watcher: steps off")

	var mu sync.Mutex
	var got1, got2 []string
	p := func(dst *[]string) func(slog.Record) {
		return func(r slog.Record) {
			mu.Lock()
			defer mu.Unlock()
			var buf bytes.Buffer
			require.NoError(t, NewPrinter(&buf, slog.LevelInfo).Handle(t.Context(), r))
			*dst = append(*dst, buf.String())
		}
	}
	cancel1 := hub.Subscribe(p(&got1))
	cancel2 := hub.Subscribe(p(&got2))
	require.Equal(t, 2, hub.Watchers())
	require.True(t, tr.Enabled())
	tr.Step("CommitLog#doAppend", slog.Int64("wroteOffset", 4096))
	tr.Logger().Info("operating line")
	cancel1()
	cancel1() // twice is harmless
	tr.Step("ReputMessageService#doReput", slog.Int64("reputFromOffset", 0))
	cancel2()
	require.Zero(t, hub.Watchers())
	require.False(t, tr.Enabled(), "last watcher gone: steps off again")
	tr.Step("ConsumeQueue#putMessagePositionInfo")

	require.Equal(t, []string{"[broker-a] 01 CommitLog#doAppend wroteOffset=4096\n"}, got1)
	require.Equal(t, []string{"[broker-a] 01 CommitLog#doAppend wroteOffset=4096\n",
		"[broker-a] 01 ReputMessageService#doReput reputFromOffset=0\n"}, got2)
	require.Contains(t, base.String(), "operating line")
	require.NotContains(t, base.String(), "CommitLog#doAppend", "the base handler's level excludes steps")
}

// TestHubWithAttrsSharesWatchers: a derived handler (logger.With) counts the same watchers and
// gives them its attributes.
func TestHubWithAttrsSharesWatchers(t *testing.T) {
	hub := NewHub(nil)
	lg := slog.New(hub).With("store", "s1")
	var got []string
	cancel := hub.Subscribe(func(r slog.Record) {
		r.Attrs(func(a slog.Attr) bool { got = append(got, a.Key+"="+a.Value.String()); return true })
	})
	defer cancel()
	tr := New(lg, "broker-a")
	require.True(t, tr.Enabled())
	tr.Step("X#y", slog.Int("n", 1))
	require.Equal(t, []string{"store=s1", "component=broker-a", "n=1"}, got)
}
