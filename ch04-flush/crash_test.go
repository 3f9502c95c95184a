package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// Environment of the crash test: the child's store directory and flush type, and the number
// of kill cycles (3 by default; ROCKETMQ_GO_CRASH_CYCLES=20 for a longer run).
const (
	crashDirEnv    = "ROCKETMQ_GO_CH04_CRASH_BROKER"
	crashModeEnv   = "ROCKETMQ_GO_CH04_CRASH_MODE"
	crashCyclesEnv = "ROCKETMQ_GO_CRASH_CYCLES"
)

func TestMain(m *testing.M) {
	mqtest.ChildMain(m, crashDirEnv, func(dir string) int { return crashBroker(dir, os.Getenv(crashModeEnv)) })
}

// modePool is ASYNC_FLUSH with the transient store pool (transientStorePoolEnable).
const modePool = "POOL"

// crashStoreConfig: 64 KiB CommitLog files, 100-unit ConsumeQueue files, index files of 64
// slots and 200 entries, every service running on the wall clock, a safe index; mode is a
// flush type or modePool.
func crashStoreConfig(dir, mode string) store.MessageStoreConfig {
	sc := embedded.SmallStoreConfig(dir)
	sc.FlushDiskType = mode
	if mode == modePool {
		sc.FlushDiskType = store.AsyncFlush
		sc.TransientStorePoolEnable = true
		sc.TransientStorePoolSize = 4
	}
	sc.MessageIndexSafe = true
	return sc
}

// crashBroker is the child: a broker over dir that reports its address and serves until killed.
func crashBroker(dir, mode string) int {
	return mqtest.ServeBroker(embedded.BrokerConfig("broker-crash", ""), crashStoreConfig(dir, mode))
}

// TestKillCycles asks: does SIGKILL lose an acknowledged message? For SYNC_FLUSH and
// ASYNC_FLUSH (a killed process loses no page cache, so neither may lose one) and for
// ASYNC_FLUSH with the transient store pool (an acknowledged put may still sit in the pool's
// buffer, in the process's memory: a kill loses exactly the messages past what was committed,
// none below the recovered log's end), it runs a broker
// as a child process, sends from 4 goroutines, kills it with SIGKILL while sends are in flight,
// and starts the next cycle on the same store — recovering from the crash before taking more
// sends. After each kill a copy of the store is opened: every message acknowledged in any cycle
// so far is at the queue offset and CommitLog offset its answer gave, each ConsumeQueue unit
// points at a record of its queue and queue offset, and the keys acknowledged in the last
// cycle are found through the index. Java: CommitLog#recoverAbnormally.
func TestKillCycles(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	cycles := 3
	if v := os.Getenv(crashCyclesEnv); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, crashCyclesEnv)
		cycles = n
	}
	for _, mode := range []string{store.SyncFlush, store.AsyncFlush, modePool} {
		t.Run(mode, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			all := map[string]mqtest.Ack{}
			acked, lost := 0, 0
			for c := 0; c < cycles; c++ {
				got := killCycle(t, dir, mode, c)
				for k, a := range got {
					all[k] = a
				}
				gone := verifyCopy(t, dir, mode, all, got, c)
				for _, k := range gone {
					delete(all, k) // its offsets are written again by the next cycle
				}
				acked, lost = acked+len(got), lost+len(gone)
				// one line per cycle; .ci/soak collects them
				t.Logf("SOAK kill mode=%s cycle=%d acked=%d lost=%d", mode, c, len(got), len(gone))
			}
			t.Logf("%s: %d cycles, %d acknowledged messages, %d lost", mode, cycles, acked, lost)
		})
	}
}

// killCycle starts the child on dir, sends until 400 sends of this cycle are acknowledged,
// kills the child with sends in flight and returns what was acknowledged.
func killCycle(t *testing.T, dir, mode string, cycle int) map[string]mqtest.Ack {
	t.Helper()
	child := mqtest.MustStartChild(t, crashDirEnv+"="+dir, crashModeEnv+"="+mode)
	senders := mqtest.StartSenders(mqtest.SendLoad{Addr: child.Addr, Topic: "Crash", Goroutines: 4,
		Key: func(g, i int) string { return fmt.Sprintf("C%d-G%d-%d", cycle, g, i) }})
	require.Eventually(t, func() bool { return senders.Acked() >= 400 }, 60*time.Second, time.Millisecond)
	child.Kill() // sends are in flight
	got := senders.Stop()
	_, err := os.Stat(filepath.Join(dir, "abort"))
	require.NoError(t, err, "a killed broker leaves its abort file")
	return got
}

// verifyCopy opens a copy of the store (the original goes on crashing) and checks it. It
// returns the keys acknowledged but lost: none, but with the pool those past the recovered
// log's end (never one below it).
func verifyCopy(t *testing.T, dir, mode string, all, last map[string]mqtest.Ack, cycle int) (lost []string) {
	t.Helper()
	cp := filepath.Join(t.TempDir(), fmt.Sprintf("copy-%d", cycle))
	require.NoError(t, mqtest.CopyDir(dir, cp))
	cfg := crashStoreConfig(cp, mode)
	ms, err := store.NewDefaultMessageStore(cfg, store.Options{ManualServices: true}, nil, nil)
	require.NoError(t, err)
	require.NoError(t, ms.Load())
	require.NoError(t, ms.Start())
	defer ms.Shutdown()

	for key, a := range all {
		if mode == modePool && a.CommitLogOffset >= ms.GetMaxPhyOffset() {
			lost = append(lost, key) // still in the pool's buffer when the process died
			continue
		}
		g := ms.GetMessage("g", "Crash", a.QueueID, a.QueueOffset, 1, nil)
		require.Equal(t, store.Found, g.Status, "cycle %d: %s lost", cycle, key)
		m, _, err := primitive.DecodeMessage(g.Messages[0])
		require.NoError(t, err)
		require.Equal(t, "body-"+key, string(m.Body))
		require.Equal(t, int64(a.CommitLogOffset), m.CommitLogOffset)
	}
	for q := int32(0); q < 4; q++ {
		for k := ms.GetMinOffsetInQueue("Crash", q); k < ms.GetMaxOffsetInQueue("Crash", q); k++ {
			m, err := ms.LookMessageByOffset(ms.GetCommitLogOffsetInQueue("Crash", q, k))
			require.NoError(t, err, "queue %d unit %d", q, k)
			require.Equal(t, q, m.QueueID)
			require.Equal(t, int64(k), m.QueueOffset)
		}
	}
	for key, a := range last {
		if slices.Contains(lost, key) {
			continue
		}
		r := ms.QueryMessage("Crash", key, 32, 0, 1<<62)
		require.NotEmpty(t, r.Messages, "cycle %d: key %s not in the index", cycle, key)
		m, _, err := primitive.DecodeMessage(r.Messages[0])
		require.NoError(t, err)
		require.Equal(t, int64(a.CommitLogOffset), m.CommitLogOffset, key)
	}
	return lost
}
