package command

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin"
	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// consumerProgress mirrors ConsumerProgressSubCommand: with -g the group's offsets per queue
// and the lag (#Diff = broker offset − consumer offset), then the TPS and the total lag;
// without -g one line per group (the groups are those with a %RETRY% topic).
//
// Deviation: #Client IP is "N/A" (Java asks each consumer for its running info,
// GET_CONSUMER_RUNNING_INFO, which is not built).
var consumerProgressCmd = &SubCommand{Name: "consumerProgress", Desc: "Query consumers's progress, speed"}

func init() {
	var g, t *string
	consumerProgressCmd.options = func(o *Options) {
		g = o.Str("g", "groupName", "consumer group name", false, "")
		t = o.Str("t", "topicName", "topic name", false, "")
	}
	consumerProgressCmd.run = func(r *Run) error {
		group := strings.TrimSpace(*g)
		if group == "" {
			return allGroupsProgress(r)
		}
		cs, err := r.Admin.ExamineConsumeStats(r.Ctx, group, strings.TrimSpace(*t))
		if err != nil {
			return err
		}
		tbl := table(r.Out, "#Topic", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Client IP", "#Diff", "#LastTime")
		for _, mq := range protocol.SortedQueues(cs.OffsetTable) {
			o := cs.OffsetTable[mq]
			last := "N/A"
			if o.LastTimestamp > 0 {
				last = time.UnixMilli(o.LastTimestamp).Format("2006-01-02 15:04:05")
			}
			row(tbl, mq.Topic, mq.BrokerName, mq.QueueID, o.BrokerOffset, o.ConsumerOffset, "N/A", o.BrokerOffset-o.ConsumerOffset, last)
		}
		if err := tbl.Render(); err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "\nConsume TPS: %.2f\n", cs.ConsumeTps)
		fmt.Fprintf(r.Out, "Diff Total: %d\n", cs.ComputeTotalDiff())
		return nil
	}
}

// allGroupsProgress is consumerProgress without -g.
func allGroupsProgress(r *Run) error {
	topics, err := r.Admin.FetchAllTopicList(r.Ctx)
	if err != nil {
		return err
	}
	tbl := table(r.Out, "#Group", "#Count", "#Version", "#Type", "#Model", "#TPS", "#Diff Total")
	for _, t := range topics {
		if !protocol.IsRetryTopic(t) {
			continue
		}
		group := strings.TrimPrefix(t, protocol.RetryGroupTopicPrefix)
		count, version, typ, model := 0, "OFFLINE", "", ""
		if cc, err := r.Admin.ExamineConsumerConnectionInfo(r.Ctx, group); err == nil {
			count = len(cc.ConnectionSet)
			typ, model = admin.ConsumeTypeDesc(cc.ConsumeType), string(cc.MessageModel)
			if count > 0 {
				version = admin.VersionDesc(cc.ConnectionSet[0].Version)
			}
		}
		tps, diff := "0.00", int64(0)
		if cs, err := r.Admin.ExamineConsumeStats(r.Ctx, group, ""); err == nil {
			tps, diff = fmt.Sprintf("%.2f", cs.ConsumeTps), cs.ComputeTotalDiff()
		}
		row(tbl, group, count, version, typ, model, tps, diff)
	}
	return tbl.Render()
}

// consumerConnection mirrors ConsumerConnectionSubCommand: the group's clients, its
// subscriptions and its consume settings.
var consumerConnectionCmd = &SubCommand{Name: "consumerConnection", Desc: "Query consumer's socket connection, client version and subscription"}

func init() {
	var g *string
	consumerConnectionCmd.options = func(o *Options) { g = o.Str("g", "consumerGroup", "consumer group name", true, "") }
	consumerConnectionCmd.run = func(r *Run) error {
		cc, err := r.Admin.ExamineConsumerConnectionInfo(r.Ctx, strings.TrimSpace(*g))
		if err != nil {
			return err
		}
		tbl := table(r.Out, "#ClientId", "#ClientAddr", "#Language", "#Version")
		for _, c := range cc.ConnectionSet {
			row(tbl, c.ClientID, c.ClientAddr, c.Language, admin.VersionDesc(c.Version))
		}
		if err := tbl.Render(); err != nil {
			return err
		}
		fmt.Fprintln(r.Out, "\nBelow is subscription:")
		sub := table(r.Out, "#Topic", "#SubExpression")
		for _, topic := range sortedKeys(cc.SubscriptionTable) {
			row(sub, topic, cc.SubscriptionTable[topic].SubString)
		}
		if err := sub.Render(); err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "\nConsumeType: %s\nMessageModel: %s\nConsumeFromWhere: %s\n", cc.ConsumeType, cc.MessageModel, cc.ConsumeFromWhere)
		return nil
	}
}

// producerConnection mirrors ProducerConnectionSubCommand: the producer group's clients on the
// brokers of a topic.
var producerConnectionCmd = &SubCommand{Name: "producerConnection", Desc: "Query producer's socket connection and client version"}

func init() {
	var g, t *string
	producerConnectionCmd.options = func(o *Options) {
		g = o.Str("g", "producerGroup", "producer group name", true, "")
		t = o.Str("t", "topic", "topic name", true, "")
	}
	producerConnectionCmd.run = func(r *Run) error {
		pc, err := r.Admin.ExamineProducerConnectionInfo(r.Ctx, strings.TrimSpace(*g), strings.TrimSpace(*t))
		if err != nil {
			return err
		}
		tbl := table(r.Out, "#ClientId", "#ClientAddr", "#Language", "#Version")
		for _, c := range pc.ConnectionSet {
			row(tbl, c.ClientID, c.ClientAddr, c.Language, admin.VersionDesc(c.Version))
		}
		return tbl.Render()
	}
}

// subscriptionGroupString is SubscriptionGroupConfig#toString.
func subscriptionGroupString(c broker.SubscriptionGroupConfig) string {
	return fmt.Sprintf("SubscriptionGroupConfig [groupName=%s, consumeEnable=%t, consumeFromMinEnable=%t, consumeBroadcastEnable=%t, "+
		"retryQueueNums=%d, retryMaxTimes=%d, brokerId=%d, whichBrokerWhenConsumeSlowly=%d, notifyConsumerIdsChangedEnable=%t]",
		c.GroupName, c.ConsumeEnable, c.ConsumeFromMinEnable, c.ConsumeBroadcastEnable, c.RetryQueueNums, c.RetryMaxTimes,
		c.BrokerID, c.WhichBrokerWhenConsumeSlowly, c.NotifyConsumerIdsChangedEnable)
}

// updateSubGroup mirrors UpdateSubGroupSubCommand: create or change a consumer group's config
// on a broker or every master of a cluster.
var updateSubGroupCmd = &SubCommand{Name: "updateSubGroup", Desc: "Update or create subscription group"}

func init() {
	var b, c, g *string
	var s, m, d, a *bool
	var q, rt, i, w *int64
	updateSubGroupCmd.options = func(o *Options) {
		b = o.Str("b", "brokerAddr", "create subscription group to which broker", false, "")
		c = o.Str("c", "clusterName", "create subscription group to which cluster", false, "")
		g = o.Str("g", "groupName", "consumer group name", true, "")
		s = o.TrueFalse("s", "consumeEnable", "consume enable", true)
		m = o.TrueFalse("m", "consumeFromMinEnable", "from min offset", false)
		d = o.TrueFalse("d", "consumeBroadcastEnable", "broadcast", true)
		q = o.Num("q", "retryQueueNums", "retry queue nums", false, 1)
		rt = o.Num("r", "retryMaxTimes", "retry max times", false, 16)
		i = o.Num("i", "brokerId", "consumer from which broker id", false, 0)
		w = o.Num("w", "whichBrokerWhenConsumeSlowly", "which broker id when consume slowly", false, 1)
		a = o.TrueFalse("a", "notifyConsumerIdsChanged", "notify consumerId changed", true)
	}
	updateSubGroupCmd.run = func(r *Run) error {
		cfg := broker.NewSubscriptionGroupConfig(strings.TrimSpace(*g))
		cfg.ConsumeEnable, cfg.ConsumeFromMinEnable, cfg.ConsumeBroadcastEnable = *s, *m, *d
		cfg.NotifyConsumerIdsChangedEnable = *a
		cfg.RetryQueueNums, cfg.RetryMaxTimes = int32(*q), int32(*rt)
		cfg.BrokerID, cfg.WhichBrokerWhenConsumeSlowly = *i, *w
		err := forTargets(r, *b, *c, func(addr string) error {
			err := r.Admin.CreateAndUpdateSubscriptionGroupConfig(r.Ctx, addr, cfg)
			if err == nil {
				fmt.Fprintf(r.Out, "create subscription group to %s success.\n", addr)
			}
			return err
		})
		if err == nil {
			fmt.Fprintln(r.Out, subscriptionGroupString(cfg))
		}
		return err
	}
}

// deleteSubGroup mirrors DeleteSubscriptionGroupCommand.
var deleteSubGroupCmd = &SubCommand{Name: "deleteSubGroup", Desc: "Delete subscription group from broker."}

func init() {
	var b, c, g *string
	var ro *bool
	deleteSubGroupCmd.options = func(o *Options) {
		b = o.Str("b", "brokerAddr", "delete subscription group from which broker", false, "")
		c = o.Str("c", "clusterName", "delete subscription group from which cluster", false, "")
		g = o.Str("g", "groupName", "subscription group name", true, "")
		ro = o.TrueFalse("r", "removeOffset", "remove offset (true|false)", false)
	}
	deleteSubGroupCmd.run = func(r *Run) error {
		group := strings.TrimSpace(*g)
		return forTargets(r, *b, *c, func(addr string) error {
			err := r.Admin.DeleteSubscriptionGroup(r.Ctx, addr, group, *ro)
			if err == nil {
				fmt.Fprintf(r.Out, "delete subscription group [%s] from broker [%s] in cluster [%s] success.\n", group, addr, *c)
			}
			return err
		})
	}
}

// parseTimestamp reads resetOffsetByTime's -s: "now", milliseconds since the epoch, or
// "yyyy-MM-dd#HH:mm:ss:SSS" in local time. Java: ResetOffsetByTimeCommand#execute.
func parseTimestamp(s string, now time.Time) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "now" {
		return now.UnixMilli(), nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	t, err := time.ParseInLocation("2006-01-02#15:04:05:000", s, time.Local)
	if err != nil {
		return 0, usageError("-s %q is neither now, milliseconds nor yyyy-MM-dd#HH:mm:ss:SSS", s)
	}
	return t.UnixMilli(), nil
}

// resetOffsetByTime mirrors ResetOffsetByTimeCommand: the brokers compute the offsets at the
// time and push them to the group's running consumers, which re-consume from there; with no
// consumer online the offsets are committed on the brokers (the "old" way).
var resetOffsetByTimeCmd = &SubCommand{Name: "resetOffsetByTime", Desc: "Reset consumer offset by timestamp(without client restart)."}

func init() {
	var g, t, s *string
	var f *bool
	resetOffsetByTimeCmd.options = func(o *Options) {
		g = o.Str("g", "group", "set the consumer group", true, "")
		t = o.Str("t", "topic", "set the topic", true, "")
		s = o.Str("s", "timestamp", "set the timestamp[now|currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]", true, "")
		f = o.TrueFalse("f", "force", "set the force rollback by timestamp switch[true|false]", true)
	}
	resetOffsetByTimeCmd.run = func(r *Run) error {
		ts, err := parseTimestamp(*s, r.Clock.Now())
		if err != nil {
			return err
		}
		group, topic := strings.TrimSpace(*g), strings.TrimSpace(*t)
		force := *f
		offsets, err := r.Admin.ResetOffsetByTimestamp(r.Ctx, topic, group, ts, force)
		if admin.IsConsumerNotOnline(err) {
			return resetOffsetOld(r, group, topic, ts, force)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "rollback consumer offset by specified group[%s], topic[%s], force[%t], timestamp(string)[%s], timestamp(long)[%d]\n",
			group, topic, force, strings.TrimSpace(*s), ts)
		tbl := table(r.Out, "#brokerName", "#queueId", "#offset")
		for _, mq := range protocol.SortedQueues(offsets) {
			row(tbl, mq.BrokerName, mq.QueueID, offsets[mq])
		}
		return tbl.Render()
	}
}

// resetOffsetOld is resetOffsetByTime for a group with no consumer online.
// Java: ResetOffsetByTimeOldCommand#resetOffset.
func resetOffsetOld(r *Run, group, topic string, ts int64, force bool) error {
	stats, err := r.Admin.ResetOffsetByTimestampOld(r.Ctx, group, topic, ts, force)
	if err != nil {
		return err
	}
	fmt.Fprintf(r.Out, "rollback consumer offset by specified consumerGroup[%s], topic[%s], force[%t], timestamp(string)[%d], timestamp(long)[%d]\n",
		group, topic, force, ts, ts)
	tbl := table(r.Out, "#brokerName", "#queueId", "#brokerOffset", "#consumerOffset", "#timestampOffset", "#resetOffset")
	for _, s := range stats {
		row(tbl, s.BrokerName, s.QueueID, s.BrokerOffset, s.ConsumerOffset, s.TimestampOffset, s.RollbackOffset)
	}
	return tbl.Render()
}
