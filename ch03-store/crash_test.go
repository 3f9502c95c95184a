package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
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

// crashChildEnv names the store directory when the test binary runs as the crash test's
// broker process.
const crashChildEnv = "ROCKETMQ_GO_CH03_CRASH_BROKER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashBroker(dir)
		return
	}
	os.Exit(m.Run())
}

// crashBrokerConfig: 64 KiB CommitLog files, 100-unit ConsumeQueue files, index files of 64
// slots and 200 entries, all services running on the wall clock, and a safe index (recovery
// after a crash starts early enough to rebuild every index entry).
func crashBrokerConfig(dir string) (broker.BrokerConfig, store.MessageStoreConfig) {
	bc := broker.DefaultBrokerConfig()
	bc.BrokerName = "broker-crash"
	bc.BrokerIP1 = "127.0.0.1"
	bc.ListenPort = 0
	bc.NamesrvAddr = ""
	sc := store.DefaultMessageStoreConfig()
	sc.StorePathRootDir = dir
	sc.MappedFileSizeCommitLog = 64 << 10
	sc.MappedFileSizeConsumeQueue = 100 * store.ConsumeQueueUnitSize
	sc.MaxHashSlotNum, sc.MaxIndexNum = 64, 200
	sc.MessageIndexSafe = true
	return bc, sc
}

// crashBroker is the child: a broker over dir that prints its address and serves until killed.
func crashBroker(dir string) {
	bc, sc := crashBrokerConfig(dir)
	server := remoting.DefaultServerConfig()
	server.ListenAddr = "127.0.0.1:0"
	b, err := broker.NewBrokerController(bc, server, sc, nil)
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

// ack is what a send's answer says about a stored message.
type ack struct {
	queueID     int32
	queueOffset int64
	phyOffset   int64
}

// TestBrokerCrashRecovery runs a broker as a child process, sends to it from several
// goroutines, kills it with SIGKILL while sends are in flight, and restarts a broker on its
// store. Then every acknowledged message is readable at the queue offset its answer gave, the
// CommitLog ends at a whole record (every record up to the end checks out: position, CRC;
// blanks only at file ends), every ConsumeQueue unit points at the record with its topic,
// queue and queue offset and every record has its unit, and every acknowledged key is found
// through the index. Java: DefaultMessageStore#load → CommitLog#recoverAbnormally.
func TestBrokerCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	require.True(t, sc.Scan(), "the child prints its address")
	addr, ok := strings.CutPrefix(sc.Text(), "ADDR ")
	require.True(t, ok, sc.Text())

	client := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer client.Shutdown()
	var mu sync.Mutex
	acked := map[string]ack{} // by key
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
				key := fmt.Sprintf("K%d-%d", g, i)
				h := protocol.SendMessageRequestHeader{ProducerGroup: "pg", Topic: "Crash", DefaultTopic: protocol.DefaultTopic,
					DefaultTopicQueueNums: 4, QueueID: int32(i % 4), BornTimestamp: time.Now().UnixMilli(),
					Properties: primitive.MarshalProperties(map[string]string{primitive.PropertyKeys: key,
						primitive.PropertyUniqClientMessageIDKeyIdx: "U" + key})}
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
				acked[key] = ack{int32(q), qo, phy}
				mu.Unlock()
			}
		})
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 1500 },
		60*time.Second, time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL)) // sends are in flight
	_ = cmd.Wait()
	close(stop)
	wg.Wait()
	_, err = os.Stat(filepath.Join(dir, "abort"))
	require.NoError(t, err, "a killed broker leaves its abort file")

	bc, scfg := crashBrokerConfig(dir)
	b, err := broker.NewBrokerController(bc, remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, scfg, nil)
	require.NoError(t, err)
	require.NoError(t, b.Initialize())
	require.NoError(t, b.Start())
	defer b.Shutdown()
	ms := b.MessageStore()

	// every acknowledged message is where its answer said
	for key, a := range acked {
		g := ms.GetMessage("g", "Crash", a.queueID, store.QueueOffset(a.queueOffset), 1, nil)
		require.Equal(t, store.Found, g.Status, key)
		m, _, err := primitive.DecodeMessage(g.Messages[0])
		require.NoError(t, err)
		require.Equal(t, "body-"+key, string(m.Body))
		require.Equal(t, a.phyOffset, m.CommitLogOffset)
	}

	// the CommitLog ends at a whole record
	records := walkCommitLog(t, dir, scfg.MappedFileSizeCommitLog, int64(ms.GetMinPhyOffset()), int64(ms.GetMaxPhyOffset()))
	require.GreaterOrEqual(t, len(records), len(acked))

	// ConsumeQueues and CommitLog agree, unit for record
	perQueue := map[int32][]*primitive.MessageExt{}
	for _, m := range records {
		perQueue[m.QueueID] = append(perQueue[m.QueueID], m)
	}
	for q, msgs := range perQueue {
		require.Equal(t, store.QueueOffset(len(msgs)), ms.GetMaxOffsetInQueue("Crash", q), "queue %d", q)
		for k, m := range msgs {
			require.Equal(t, int64(k), m.QueueOffset)
			require.Equal(t, store.CommitLogOffset(m.CommitLogOffset), ms.GetCommitLogOffsetInQueue("Crash", q, store.QueueOffset(k)), "queue %d unit %d", q, k)
		}
	}

	// and the index finds every acknowledged key, by KEYS and by UNIQ_KEY
	for key, a := range acked {
		for _, k := range []string{key, "U" + key} {
			r := ms.QueryMessage("Crash", k, 32, 0, 1<<62)
			require.Len(t, r.Messages, 1, k)
			m, _, err := primitive.DecodeMessage(r.Messages[0])
			require.NoError(t, err)
			require.Equal(t, a.phyOffset, m.CommitLogOffset, k)
		}
	}
}

// walkCommitLog reads the CommitLog files under dir from min to max (bytes) and returns every
// message; it fails the test unless each record sits at its own PHYSICALOFFSET with a good body
// CRC, blanks fill file ends only, and the walk ends exactly at max.
func walkCommitLog(t *testing.T, dir string, fileSize int, min, max int64) []*primitive.MessageExt {
	t.Helper()
	var out []*primitive.MessageExt
	for off := min; off < max; {
		from := off - off%int64(fileSize)
		data, err := os.ReadFile(filepath.Join(dir, "commitlog", offsetName(from)))
		require.NoError(t, err)
		pos := int(off - from)
		size := int(binary.BigEndian.Uint32(data[pos:]))
		if binary.BigEndian.Uint32(data[pos+4:]) == primitive.BlankMagicCode {
			require.Equal(t, fileSize-pos, size, "a blank fills the rest of its file")
			off = from + int64(fileSize)
			continue
		}
		m, n, err := primitive.DecodeMessage(data[pos:])
		require.NoError(t, err, "record at %d", off)
		require.Equal(t, off, m.CommitLogOffset)
		require.Equal(t, int32(crc32.ChecksumIEEE(m.Body)&0x7FFFFFFF), m.BodyCRC, "body CRC at %d", off)
		out = append(out, m)
		off += int64(n)
	}
	return out
}
