// Command ch01-namesrv is chapter 1 of the annotated text: the name server (NameServer的启动)
// and broker registration (Broker服务注册).
//
// The scenario, on loopback, in a temp dir removed at the end:
//
//  1. a name server starts the way mqnamesrv does (NamesrvStartup#main with a -c properties
//     file), with an injected clock so that liveness can be advanced by hand;
//  2. two brokers of one cluster, broker-a and broker-b, start and register (BrokerController#start
//     → #registerBrokerAll → the name server's DefaultRequestProcessor → RouteInfoManager#registerBroker);
//  3. a topic is created on both, which registers each broker again with a new DataVersion;
//  4. a client asks for the topic's route, as a producer or consumer would (GET_ROUTEINFO_BY_TOPIC →
//     RouteInfoManager#pickupTopicRouteData), and the route is printed as a table;
//  5. broker-a stops sending heartbeats; 100 s later broker-b sends one; 21 s after that the
//     expiry scan (RouteInfoManager#scanNotActiveBroker, 120 s) removes broker-a;
//  6. broker-b's connection closes and the name server forgets it at once
//     (BrokerHousekeepingService → RouteInfoManager#onChannelDestroy); the route is gone.
//
// Every step line is logged by the code under mq/, through a trace.Printer; this file only drives
// the flow and prints tables. Loop bodies are called directly (RegisterBrokerAll,
// ScanNotActiveBroker) after advancing the name server's clock, so the run is fast and its
// output deterministic: `go test ./ch01-namesrv` compares it with the chapter's golden file.
//
// Run: go run ./ch01-namesrv
package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/mqtest"
	"github.com/annotated-rocketmq/rocketmq-go/mq/namesrv"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

func main() { mqtest.Main("ch01-namesrv", run) }

const (
	cluster   = "DefaultCluster"
	topicName = "TopicTest"
	// expiry is the name server's brokerChannelExpiredTime (RocketMQ's 120 s, unchanged: the
	// clock is advanced instead of waited for).
	expiry = 120 * time.Second
)

// run plays the scenario and writes its log and tables to w.
func run(w io.Writer, cfg mqtest.Config) error {
	return mqtest.Play(w, cfg.Dir, "ch01-namesrv", true, play)
}

// play is the chapter's flow on the stage run sets up; shutdown is not part of its log.
func play(stage *mqtest.Stage) (err error) {
	out, gate, logger, dir := stage.Out, stage.Gate, stage.Logger, stage.Dir

	mqtest.Say(out, "== 1. NameServer的启动 — the name server starts ==")
	clk := clock.NewManual(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	ns, err := startNamesrv(dir, logger, clk)
	if err != nil {
		return err
	}
	defer ns.Shutdown()

	mqtest.Say(out, "== 2. Broker服务注册 — two brokers start and register ==")
	var brokers []*broker.BrokerController
	defer func() {
		gate.Close()
		for i := len(brokers) - 1; i >= 0; i-- {
			brokers[i].Shutdown()
		}
	}()
	for _, name := range []string{"broker-a", "broker-b"} {
		b, err := startBroker(name, ns.Addr(), dir, logger)
		if err != nil {
			return err
		}
		brokers = append(brokers, b)
	}
	brokerA, brokerB := brokers[0], brokers[1]
	printClusters(out, ns)

	cl := remoting.NewClient(remoting.ClientConfig{}, nil)
	defer cl.Shutdown()

	mqtest.Say(out, "== 3. UPDATE_AND_CREATE_TOPIC %s on both brokers: each registers again ==", topicName)
	for _, b := range brokers {
		if err := mqtest.CreateTopic(cl, b.BrokerAddr(), topicName, 4, protocol.PermRead|protocol.PermWrite); err != nil {
			return err
		}
	}

	mqtest.Say(out, "== 4. namesrv 获取topic信息 — a client asks for the route of %s ==", topicName)
	route, err := mqtest.QueryRoute(cl, ns.Addr(), topicName)
	if err != nil {
		return err
	}
	printRoute(out, route)

	mqtest.Say(out, "== 5. 心跳检测 — broker-a stops its heartbeats; broker-b sends one at +100 s ==")
	brokerA.BrokerOuterAPI().UpdateNameServerAddressList(nil) // its registrations now go nowhere
	clk.Advance(100 * time.Second)
	brokerB.RegisterBrokerAll() // one pass of broker-b's registration service
	clk.Advance(21 * time.Second)
	mqtest.Say(out, "== +121 s: one pass of the name server's scan (expiry %s) ==", expiry)
	ns.RouteInfoManager.ScanNotActiveBroker()
	printClusters(out, ns)

	mqtest.Say(out, "== 6. 路由剔除 — broker-b's connection closes ==")
	brokerB.BrokerOuterAPI().CloseNameServerChannels()
	brokerB.BrokerOuterAPI().UpdateNameServerAddressList(nil) // and it does not come back
	if err := mqtest.WaitUntil(10*time.Second, func() bool { return !registered(ns, "broker-b") }); err != nil {
		return fmt.Errorf("broker-b still registered after its connection closed: %w", err)
	}
	printClusters(out, ns)
	_, err = mqtest.QueryRoute(cl, ns.Addr(), topicName)
	var re *remoting.RemoteError
	if !errors.As(err, &re) || re.Code != protocol.TopicNotExist {
		return fmt.Errorf("route of %s after both brokers left: want TOPIC_NOT_EXIST, got %v", topicName, err)
	}
	mqtest.Say(out, "route of %s: TOPIC_NOT_EXIST (code %d): no broker carries it any more", topicName, re.Code)
	return nil
}

// startNamesrv starts a name server through NamesrvStartup#main with a properties file, as
// `mqnamesrv -c namesrv.properties` would, on the clock clk.
// The scan service's own passes are an hour apart: the chapter runs the scan itself.
func startNamesrv(dir string, logger *slog.Logger, clk clock.Clock) (*namesrv.NamesrvController, error) {
	props := filepath.Join(dir, "namesrv.properties")
	text := "listenPort=0\n" +
		"bindAddress=127.0.0.1\n" +
		"kvConfigPath=" + filepath.Join(dir, "namesrv", "kvConfig.json") + "\n" +
		"scanNotActiveBrokerInterval=3600000\n" +
		"brokerChannelExpiredTime=" + strconv.FormatInt(expiry.Milliseconds(), 10) + "\n"
	if err := os.WriteFile(props, []byte(text), 0o644); err != nil {
		return nil, err
	}
	ns, err := namesrv.Main([]string{"-c", props}, io.Discard, io.Discard, trace.New(logger, "namesrv"), namesrv.WithClock(clk))
	if err != nil {
		return nil, fmt.Errorf("start name server: %w", err)
	}
	return ns, nil
}

// startBroker starts a master of cluster on an ephemeral loopback port with small store files
// under dir/name, registered with the name server at nsAddr.
func startBroker(name, nsAddr, dir string, logger *slog.Logger) (*broker.BrokerController, error) {
	bc := embedded.BrokerConfig(name, nsAddr)
	bc.BrokerClusterName = cluster
	sc := embedded.SmallStoreConfig(filepath.Join(dir, name))
	sc.StorePathCommitLog = filepath.Join(sc.StorePathRootDir, "commitlog")
	return embedded.StartBroker(bc, embedded.LoopbackServer(), sc, trace.New(logger, name))
}

// registered reports whether the name server knows brokerName.
func registered(ns *namesrv.NamesrvController, brokerName string) bool {
	_, ok := ns.RouteInfoManager.GetAllClusterInfo().BrokerAddrTable[brokerName]
	return ok
}

// printRoute prints a route as one row per queue data. Addresses are left out (their ports
// change from run to run); broker ids say which address is the master (0) and which a slave.
func printRoute(w io.Writer, route *protocol.TopicRouteData) {
	brokers := map[string]*protocol.BrokerData{}
	for _, bd := range route.BrokerDatas {
		brokers[bd.BrokerName] = bd
	}
	t := mqtest.NewTable(w, "broker name", "cluster", "broker ids", "read queues", "write queues", "perm")
	for _, qd := range route.QueueDatas {
		bd := brokers[qd.BrokerName]
		clusterName, ids := "-", "-"
		if bd != nil {
			clusterName, ids = bd.Cluster, brokerIDs(bd)
		}
		t.Row(qd.BrokerName, clusterName, ids, qd.ReadQueueNums, qd.WriteQueueNums, protocol.Perm2String(qd.Perm))
	}
	t.Render()
}

// printClusters prints the name server's cluster table (what GET_BROKER_CLUSTER_INFO answers)
// and how many topics it routes.
func printClusters(w io.Writer, ns *namesrv.NamesrvController) {
	ci := ns.RouteInfoManager.GetAllClusterInfo()
	t := mqtest.NewTable(w, "cluster", "broker name", "broker ids")
	clusters := make([]string, 0, len(ci.ClusterAddrTable))
	for c := range ci.ClusterAddrTable {
		clusters = append(clusters, c)
	}
	sort.Strings(clusters)
	for _, c := range clusters {
		for _, name := range ci.ClusterAddrTable[c] {
			ids := "-"
			if bd := ci.BrokerAddrTable[name]; bd != nil {
				ids = brokerIDs(bd)
			}
			t.Row(c, name, ids)
		}
	}
	if len(clusters) == 0 {
		t.Row("(none)", "", "")
	}
	t.Render()
	mqtest.Say(w, "topics routed by the name server: %d", len(ns.RouteInfoManager.GetAllTopicList()))
}

// brokerIDs lists a broker's ids, sorted, with their role: "0 (master)", "1 (slave)".
func brokerIDs(bd *protocol.BrokerData) string {
	ids := make([]int64, 0, len(bd.BrokerAddrs))
	for id := range bd.BrokerAddrs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		role := "slave"
		if id == protocol.MasterID {
			role = "master"
		}
		s += fmt.Sprintf("%d (%s)", id, role)
	}
	return s
}
