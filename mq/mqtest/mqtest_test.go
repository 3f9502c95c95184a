package mqtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/producer"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// childEnv selects the kit's own child modes (see TestMain).
const childEnv = "MQTEST_SELF_CHILD"

func TestMain(m *testing.M) {
	ChildMain(m, childEnv, func(mode string) int {
		switch mode {
		case "serve":
			fmt.Println("before the address")
			ReportAddr("127.0.0.1:1")
			fmt.Println("after the address")
			select {}
		case "term":
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, syscall.SIGTERM)
			ReportAddr("127.0.0.1:2")
			<-sig
			return 0
		default:
			fmt.Fprintln(os.Stderr, "no address today")
			return 3
		}
	})
}

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

// A log file is named by its first offset in 20 zero-padded digits (UtilAll#offset2FileName).
func TestFileName(t *testing.T) {
	require.Equal(t, "00000000000000000000", FileName(0))
	require.Equal(t, "00000000000000004096", FileName(4096))
	require.Equal(t, "00000000001073741824", FileName(1<<30))
}

// CopyDir copies every file and directory, contents intact.
func TestCopyDir(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	require.NoError(t, os.MkdirAll(filepath.Join(src, "a", "b"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "top"), []byte("1"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "a", "b", "deep"), []byte("22"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(src, "empty"), 0o755))
	require.NoError(t, CopyDir(src, dst))
	data, err := os.ReadFile(filepath.Join(dst, "a", "b", "deep"))
	require.NoError(t, err)
	require.Equal(t, "22", string(data))
	data, err = os.ReadFile(filepath.Join(dst, "top"))
	require.NoError(t, err)
	require.Equal(t, "1", string(data))
	require.DirExists(t, filepath.Join(dst, "empty"))
}

// A Table prints what tablewriter prints for the same cells, each cell as fmt.Sprint shows it.
func TestTable(t *testing.T) {
	var got, want bytes.Buffer
	tb := NewTable(&got, "name", "n", "ok")
	tb.Row("broker-a", 4, true)
	tb.Row("broker-b", int64(-1), false)
	tb.Render()
	tw := tablewriter.NewWriter(&want)
	tw.Header("name", "n", "ok")
	require.NoError(t, tw.Append("broker-a", "4", "true"))
	require.NoError(t, tw.Append("broker-b", "-1", "false"))
	require.NoError(t, tw.Render())
	require.Equal(t, want.String(), got.String())
	require.Contains(t, got.String(), "broker-b")
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

// StartChild runs the test binary as a child, reads the address it reports and keeps the rest
// of its output; Kill ends it with SIGKILL.
func TestChildKill(t *testing.T) {
	c := MustStartChild(t, childEnv+"=serve")
	require.Equal(t, "127.0.0.1:1", c.Addr)
	require.ErrorIs(t, c.Wait(10*time.Millisecond), ErrChildRunning)
	c.Kill()
	err := c.Wait(time.Second)
	var ee interface{ Sys() any }
	require.ErrorAs(t, err, &ee)
	require.Equal(t, syscall.SIGKILL, ee.Sys().(syscall.WaitStatus).Signal())
	require.Contains(t, c.Output(), "before the address\n")
	require.Contains(t, c.Output(), "after the address\n")
	require.NotContains(t, c.Output(), AddrPrefix)
	c.Kill() // a second Kill is harmless
}

// A child stopped with a signal it handles exits with its own status.
func TestChildSignal(t *testing.T) {
	c := MustStartChild(t, childEnv+"=term")
	require.NoError(t, c.Signal(syscall.SIGTERM))
	require.NoError(t, c.Wait(10*time.Second))
}

// A child that exits before it reports an address is an error holding its output.
func TestChildExitsEarly(t *testing.T) {
	_, err := StartChild(t, childEnv+"=fail")
	require.ErrorContains(t, err, "no address today")
	require.ErrorContains(t, err, "exit status 3")
}

// CreateTopic, WaitRouted and QueryRoute against a real cluster; a topic no broker has is a
// remote TOPIC_NOT_EXIST. Senders' acknowledged sends are in the store where their answers said.
func TestRemoteAndSenders(t *testing.T) {
	c, err := embedded.Start(embedded.Config{Dir: t.TempDir(), Customize: func(_ int, _ *broker.BrokerConfig, sc *store.MessageStoreConfig) {
		sc.MappedFileSizeCommitLog = 64 << 10
		sc.MappedFileSizeConsumeQueue = 100 * store.ConsumeQueueUnitSize
	}})
	require.NoError(t, err)
	t.Cleanup(c.Shutdown)
	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	t.Cleanup(cl.Shutdown)
	b := c.Brokers[0]
	require.NoError(t, CreateTopic(cl, b.BrokerAddr(), "KitTopic", 4, protocol.PermRead|protocol.PermWrite))
	require.NoError(t, WaitRouted(cl, c.NamesrvAddr(), "KitTopic", 1))
	route, err := QueryRoute(cl, c.NamesrvAddr(), "KitTopic")
	require.NoError(t, err)
	require.Equal(t, int32(4), route.QueueDatas[0].WriteQueueNums)
	_, err = QueryRoute(cl, c.NamesrvAddr(), "NoSuchTopic")
	var re *remoting.RemoteError
	require.ErrorAs(t, err, &re)
	require.EqualValues(t, protocol.TopicNotExist, re.Code)

	s := StartSenders(SendLoad{Addr: b.BrokerAddr(), Topic: "KitTopic", Goroutines: 2,
		Key: func(g, i int) string { return fmt.Sprintf("G%d-%d", g, i) }})
	require.NoError(t, WaitUntil(30*time.Second, func() bool { return s.Acked() >= 20 }))
	acked := s.Stop()
	require.GreaterOrEqual(t, len(acked), 20)
	ms := b.MessageStore()
	require.NoError(t, WaitUntil(10*time.Second, func() bool { return ms.GetMaxOffsetInQueue("KitTopic", 0) > 0 }))
	for key, a := range acked {
		require.NoError(t, WaitUntil(10*time.Second, func() bool {
			return ms.GetMessage("g", "KitTopic", a.QueueID, a.QueueOffset, 1, nil).Status == store.Found
		}), key)
		g := ms.GetMessage("g", "KitTopic", a.QueueID, a.QueueOffset, 1, nil)
		m, _, err := primitive.DecodeMessage(g.Messages[0])
		require.NoError(t, err)
		require.Equal(t, "body-"+key, string(m.Body))
		require.Equal(t, key, m.Properties[primitive.PropertyKeys])
		require.Equal(t, a.CommitLogOffset, m.CommitLogOffset)
	}
}

// Servers starts a name server, brokers registered with it and producers, and stops them all.
func TestServers(t *testing.T) {
	s, err := StartServers(t.TempDir())
	require.NoError(t, err)
	bc := StandaloneBrokerConfig("broker-s")
	bc.NamesrvAddr = s.Namesrv.Addr()
	sc := store.DefaultMessageStoreConfig()
	sc.StorePathRootDir = t.TempDir()
	sc.MappedFileSizeCommitLog = 64 << 10
	sc.MappedFileSizeConsumeQueue = 100 * store.ConsumeQueueUnitSize
	b, err := s.StartBroker(bc, sc, nil)
	require.NoError(t, err)
	require.NoError(t, CreateTopic(s.Client, b.BrokerAddr(), "ServersTopic", 2, protocol.PermRead|protocol.PermWrite))
	require.NoError(t, WaitRouted(s.Client, s.Namesrv.Addr(), "ServersTopic", 1))
	pc := producer.DefaultConfig("servers_producer")
	pc.NamesrvAddr = s.Namesrv.Addr()
	pc.InstanceName = t.Name()
	pc.DisableScheduledTasks = true
	p, err := s.StartProducer(pc)
	require.NoError(t, err)
	r, err := p.Send(context.Background(), &primitive.Message{Topic: "ServersTopic", Body: []byte("x")})
	require.NoError(t, err)
	require.Equal(t, producer.SendOK, r.SendStatus)
	s.Shutdown()
	_, err = QueryRoute(remoting.NewClient(remoting.ClientConfig{}, nil), s.Namesrv.Addr(), "ServersTopic")
	require.Error(t, err, "the name server is down")
}
