package command

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/fastjson"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// targets resolves -b (one broker address) or -c (every master of a cluster) to addresses;
// neither is a usage error.
func targets(r *Run, broker, cluster string) ([]string, error) {
	switch {
	case broker != "":
		return []string{strings.TrimSpace(broker)}, nil
	case cluster != "":
		ci, err := r.Admin.ExamineBrokerClusterInfo(r.Ctx)
		if err != nil {
			return nil, err
		}
		return admin.MasterAddrsOfCluster(ci, strings.TrimSpace(cluster))
	}
	return nil, usageError("one of -b (brokerAddr) and -c (clusterName) is required")
}

// forTargets runs do on each broker address -b or -c names (targets), in order; the first
// error stops it.
func forTargets(r *Run, broker, cluster string, do func(addr string) error) error {
	addrs, err := targets(r, broker, cluster)
	if err != nil {
		return err
	}
	for _, addr := range addrs {
		if err := do(addr); err != nil {
			return err
		}
	}
	return nil
}

// topicConfigString is TopicConfig#toString.
func topicConfigString(tc protocol.TopicConfig) string {
	return fmt.Sprintf("TopicConfig [topicName=%s, readQueueNums=%d, writeQueueNums=%d, perm=%s, topicFilterType=%s, topicSysFlag=%d, order=%t]",
		tc.TopicName, tc.ReadQueueNums, tc.WriteQueueNums, protocol.Perm2String(tc.Perm), tc.TopicFilterType, tc.TopicSysFlag, tc.Order)
}

// updateTopic mirrors UpdateTopicSubCommand: create or change a topic on one broker (-b) or on
// every master of a cluster (-c).
var updateTopicCmd = &SubCommand{
	Name: "updateTopic",
	Desc: "Update or create topic",
}

func init() {
	var b, c, t *string
	var o *bool
	var r, w, p *int64
	updateTopicCmd.options = func(opts *Options) {
		b = opts.Str("b", "brokerAddr", "create topic to which broker", false, "")
		c = opts.Str("c", "clusterName", "create topic to which cluster", false, "")
		t = opts.Str("t", "topic", "topic name", true, "")
		r = opts.Num("r", "readQueueNums", "set read queue nums", false, 8)
		w = opts.Num("w", "writeQueueNums", "set write queue nums", false, 8)
		p = opts.Num("p", "perm", "set topic's permission(2|4|6), intro[2:W 4:R; 6:RW]", false, 6)
		o = opts.TrueFalse("o", "order", "set topic's order(true|false)", false)
	}
	updateTopicCmd.run = func(run *Run) error {
		tc := *protocol.NewTopicConfig(strings.TrimSpace(*t))
		if err := protocol.ValidateTopic(tc.TopicName); err != nil {
			return usageError("%v", err)
		}
		tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm, tc.Order = int32(*r), int32(*w), int32(*p), *o
		err := forTargets(run, *b, *c, func(addr string) error {
			err := run.Admin.CreateAndUpdateTopicConfig(run.Ctx, addr, tc)
			if err == nil {
				fmt.Fprintf(run.Out, "create topic to %s success.\n", addr)
			}
			return err
		})
		if err != nil {
			return err
		}
		if tc.Order {
			if err := setOrderConf(run, tc, *b, *c); err != nil {
				return err
			}
		}
		fmt.Fprintln(run.Out, topicConfigString(tc))
		return nil
	}
}

// setOrderConf records an ordered topic's brokers and queue counts ("broker-a:8;broker-b:8") in
// the name servers' ORDER_TOPIC_CONFIG: with -c every broker of the cluster, with -b that
// broker. Java: UpdateTopicSubCommand (its isOrder branch).
func setOrderConf(run *Run, tc protocol.TopicConfig, broker, cluster string) error {
	ci, err := run.Admin.ExamineBrokerClusterInfo(run.Ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, bd := range ci.BrokerAddrTable {
		if cluster != "" && bd.Cluster == cluster || broker != "" && slices.Contains(slices.Collect(maps.Values(bd.BrokerAddrs)), broker) {
			names = append(names, bd.BrokerName)
		}
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s:%d", n, tc.WriteQueueNums)
	}
	conf := strings.Join(parts, ";")
	if err := run.Admin.CreateOrUpdateOrderConf(run.Ctx, tc.TopicName, conf); err != nil {
		return err
	}
	what := "cluster"
	if cluster == "" {
		what = "broker"
	}
	fmt.Fprintf(run.Out, "set %s orderConf. isOrder=%t, orderConf=[%s]\n", what, tc.Order, conf)
	return nil
}

// deleteTopic mirrors DeleteTopicSubCommand: the topic goes from every master of the cluster,
// then from the name servers.
var deleteTopicCmd = &SubCommand{Name: "deleteTopic", Desc: "Delete topic from broker and NameServer."}

func init() {
	var t, c *string
	deleteTopicCmd.options = func(o *Options) {
		t = o.Str("t", "topic", "topic name", true, "")
		c = o.Str("c", "clusterName", "delete topic from which cluster", true, "")
	}
	deleteTopicCmd.run = func(r *Run) error {
		topic, cluster := strings.TrimSpace(*t), strings.TrimSpace(*c)
		addrs, err := targets(r, "", cluster)
		if err != nil {
			return err
		}
		if err := r.Admin.DeleteTopicInBroker(r.Ctx, addrs, topic); err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "delete topic [%s] from cluster [%s] success.\n", topic, cluster)
		if err := r.Admin.DeleteTopicInNameServer(r.Ctx, topic, ""); err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "delete topic [%s] from NameServer success.\n", topic)
		return nil
	}
}

// topicList mirrors TopicListSubCommand: every topic the name server knows, one per line; with
// -c a table of cluster, topic and the groups that consume it.
var topicListCmd = &SubCommand{Name: "topicList", Desc: "Fetch all topic list from name server"}

func init() {
	var c *bool
	topicListCmd.options = func(o *Options) { c = o.Bool("c", "clusterModel", "clusterModel") }
	topicListCmd.run = func(r *Run) error {
		topics, err := r.Admin.FetchAllTopicList(r.Ctx)
		if err != nil {
			return err
		}
		if !*c {
			for _, t := range topics {
				fmt.Fprintln(r.Out, t)
			}
			return nil
		}
		ci, err := r.Admin.ExamineBrokerClusterInfo(r.Ctx)
		if err != nil {
			return err
		}
		tbl := table(r.Out, "#Cluster Name", "#Topic", "#Consumer Group")
		for _, cluster := range sortedKeys(ci.ClusterAddrTable) {
			ct, err := r.Admin.FetchTopicsByCluster(r.Ctx, cluster)
			if err != nil {
				return err
			}
			for _, t := range ct {
				if protocol.IsRetryTopic(t) || protocol.IsDLQTopic(t) {
					continue
				}
				groups, err := r.Admin.QueryTopicConsumeByWho(r.Ctx, t)
				if err != nil || len(groups) == 0 {
					groups = []string{""}
				}
				for _, g := range groups {
					row(tbl, cluster, t, g)
				}
			}
		}
		return tbl.Render()
	}
}

// topicRoute mirrors TopicRouteSubCommand: the route as pretty JSON.
var topicRouteCmd = &SubCommand{Name: "topicRoute", Desc: "Examine topic route info"}

func init() {
	var t *string
	topicRouteCmd.options = func(o *Options) { t = o.Str("t", "topic", "topic name", true, "") }
	topicRouteCmd.run = func(r *Run) error {
		route, err := r.Admin.ExamineTopicRouteInfo(r.Ctx, strings.TrimSpace(*t))
		if err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "%s\n", fastjson.Pretty(route.EncodeStandard()))
		return nil
	}
}

// topicStatus mirrors TopicStatusSubCommand: min and max offset and last store time per queue.
var topicStatusCmd = &SubCommand{Name: "topicStatus", Desc: "Examine topic Status info"}

func init() {
	var t *string
	topicStatusCmd.options = func(o *Options) { t = o.Str("t", "topic", "topic name", true, "") }
	topicStatusCmd.run = func(r *Run) error {
		stats, err := r.Admin.ExamineTopicStats(r.Ctx, strings.TrimSpace(*t))
		if err != nil {
			return err
		}
		tbl := table(r.Out, "#Broker Name", "#QID", "#Min Offset", "#Max Offset", "#Last Updated")
		for _, mq := range protocol.SortedQueues(stats.OffsetTable) {
			o := stats.OffsetTable[mq]
			lastUpdated := "" // Java prints nothing for a queue never written
			if o.LastUpdateTimestamp > 0 {
				lastUpdated = admin.HumanTime(o.LastUpdateTimestamp)
			}
			row(tbl, mq.BrokerName, mq.QueueID, o.MinOffset, o.MaxOffset, lastUpdated)
		}
		return tbl.Render()
	}
}
