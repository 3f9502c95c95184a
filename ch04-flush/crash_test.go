package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
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
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashBroker(dir, os.Getenv(crashModeEnv))
		return
	}
	os.Exit(m.Run())
}

// crashStoreConfig: 64 KiB CommitLog files, 100-unit ConsumeQueue files, index files of 64
// slots and 200 entries, every service running on the wall clock, a safe index.
func crashStoreConfig(dir, flushDiskType string) store.MessageStoreConfig {
	sc := store.DefaultMessageStoreConfig()
	sc.StorePathRootDir = dir
	sc.FlushDiskType = flushDiskType
	sc.MappedFileSizeCommitLog = 64 << 10
	sc.MappedFileSizeConsumeQueue = 100 * store.ConsumeQueueUnitSize
	sc.MaxHashSlotNum, sc.MaxIndexNum = 64, 200
	sc.MessageIndexSafe = true
	return sc
}

// crashBroker is the child: a broker over dir that prints its address and serves until killed.
func crashBroker(dir, mode string) {
	bc := broker.DefaultBrokerConfig()
	bc.BrokerName = "broker-crash"
	bc.BrokerIP1 = "127.0.0.1"
	bc.ListenPort = 0
	bc.NamesrvAddr = ""
	server := remoting.DefaultServerConfig()
	server.ListenAddr = "127.0.0.1:0"
	b, err := broker.NewBrokerController(bc, server, crashStoreConfig(dir, mode), nil)
	if err == nil {
		err = b.Initialize()
	}
	if err == nil {
		err = b.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash broker:", err)
		os.Exit(2)
	}
	fmt.Printf("ADDR %s\n", b.BrokerAddr())
	select {}
}

// acked is what a send's answer says about a stored message.
type acked struct {
	queueID     int32
	queueOffset int64
	phyOffset   int64
}

// TestKillCycles asks: does SIGKILL lose an acknowledged message? For SYNC_FLUSH and
// ASYNC_FLUSH (a killed process loses no page cache, so neither may lose one), it runs a broker
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
	for _, mode := range []string{store.SyncFlush, store.AsyncFlush} {
		t.Run(mode, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			all := map[string]acked{}
			for c := 0; c < cycles; c++ {
				got := killCycle(t, dir, mode, c)
				for k, a := range got {
					all[k] = a
				}
				verifyCopy(t, dir, mode, all, got, c)
			}
			t.Logf("%s: %d cycles, %d acknowledged messages, none lost", mode, cycles, len(all))
		})
	}
}

// killCycle starts the child on dir, sends until 400 sends of this cycle are acknowledged,
// kills the child with sends in flight and returns what was acknowledged.
func killCycle(t *testing.T, dir, mode string, cycle int) map[string]acked {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashModeEnv+"="+mode)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	sc := bufio.NewScanner(stdout)
	require.True(t, sc.Scan(), "the child prints its address")
	addr, ok := strings.CutPrefix(sc.Text(), "ADDR ")
	require.True(t, ok, sc.Text())

	client := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer client.Shutdown()
	var mu sync.Mutex
	got := map[string]acked{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("C%d-G%d-%d", cycle, g, i)
				h := protocol.SendMessageRequestHeader{ProducerGroup: "pg", Topic: "Crash", DefaultTopic: protocol.DefaultTopic,
					DefaultTopicQueueNums: 4, QueueID: int32(i % 4), BornTimestamp: time.Now().UnixMilli(),
					Properties: primitive.MarshalProperties(map[string]string{primitive.PropertyKeys: key})}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				resp, err := client.InvokeSync(ctx, addr, remoting.NewRequest(protocol.SendMessage, h.Encode(), []byte("body-"+key)))
				cancel()
				if err != nil || resp.Code != protocol.Success {
					return // the broker is gone
				}
				_, phy, err := primitive.DecodeOffsetMsgID(resp.ExtFields["msgId"])
				if err != nil {
					return
				}
				q, _ := strconv.Atoi(resp.ExtFields["queueId"])
				qo, _ := strconv.ParseInt(resp.ExtFields["queueOffset"], 10, 64)
				mu.Lock()
				got[key] = acked{int32(q), qo, phy}
				mu.Unlock()
			}
		})
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) >= 400 },
		60*time.Second, time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL)) // sends are in flight
	_ = cmd.Wait()
	killed = true
	close(stop)
	wg.Wait()
	_, err = os.Stat(filepath.Join(dir, "abort"))
	require.NoError(t, err, "a killed broker leaves its abort file")
	return got
}

// verifyCopy opens a copy of the store (the original goes on crashing) and checks it.
func verifyCopy(t *testing.T, dir, mode string, all, last map[string]acked, cycle int) {
	t.Helper()
	cp := filepath.Join(t.TempDir(), fmt.Sprintf("copy-%d", cycle))
	require.NoError(t, copyTree(dir, cp))
	cfg := crashStoreConfig(cp, mode)
	ms, err := store.NewDefaultMessageStore(cfg, store.Options{ManualServices: true}, nil, nil)
	require.NoError(t, err)
	require.NoError(t, ms.Load())
	require.NoError(t, ms.Start())
	defer ms.Shutdown()

	for key, a := range all {
		g := ms.GetMessage("g", "Crash", a.queueID, store.QueueOffset(a.queueOffset), 1, nil)
		require.Equal(t, store.Found, g.Status, "cycle %d: %s lost", cycle, key)
		m, _, err := primitive.DecodeMessage(g.Messages[0])
		require.NoError(t, err)
		require.Equal(t, "body-"+key, string(m.Body))
		require.Equal(t, a.phyOffset, m.CommitLogOffset)
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
		r := ms.QueryMessage("Crash", key, 32, 0, 1<<62)
		require.NotEmpty(t, r.Messages, "cycle %d: key %s not in the index", cycle, key)
		m, _, err := primitive.DecodeMessage(r.Messages[0])
		require.NoError(t, err)
		require.Equal(t, a.phyOffset, m.CommitLogOffset, key)
	}
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
