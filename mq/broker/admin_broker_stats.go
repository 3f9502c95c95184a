package broker

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// brokerVersionDesc names remoting.DefaultVersion (409) as MQVersion#getVersionDesc does.
const brokerVersionDesc = "V4_9_8"

// getTopicStatsInfo answers GET_TOPIC_STATS_INFO (202): for every write queue of the topic its
// min and max queue offset and the store time (ms) of its last message (0 for an empty queue);
// TOPIC_NOT_EXIST "topic[T] not exist" for a topic this broker does not hold.
// Java: AdminBrokerProcessor#getTopicStatsInfo.
func (p *AdminBrokerProcessor) getTopicStatsInfo(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.TopicRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("get topic stats info", err)
	}
	tc := p.b.topicConfigManager.SelectTopicConfig(h.Topic)
	if tc == nil {
		return remoting.NewResponse(protocol.TopicNotExist, "topic["+h.Topic+"] not exist")
	}
	ms := p.b.messageStore
	t := protocol.TopicStatsTable{OffsetTable: map[primitive.MessageQueue]protocol.TopicOffset{}}
	for i := range tc.WriteQueueNums {
		mq := primitive.MessageQueue{Topic: h.Topic, BrokerName: p.b.cfg.BrokerName, QueueID: i}
		o := protocol.TopicOffset{
			MinOffset: int64(max(ms.GetMinOffsetInQueue(h.Topic, i), 0)),
			MaxOffset: int64(max(ms.GetMaxOffsetInQueue(h.Topic, i), 0)),
		}
		if o.MaxOffset > 0 {
			o.LastUpdateTimestamp = ms.GetMessageStoreTimeStamp(h.Topic, i, store.QueueOffset(o.MaxOffset-1))
		}
		t.OffsetTable[mq] = o
	}
	return jsonBody(t.Encode(), nil, "")
}

// getConsumeStats answers GET_CONSUME_STATS (208): for every read queue of the header's topic
// (or, without one, of every topic the group has offsets on) the broker's max offset, the
// group's committed offset (0 when none) and the store time of the last consumed message.
// A topic the broker does not hold is skipped, and so is one an online group does not
// subscribe. consumeTps is 0 (Deviation: there is no BrokerStatsManager yet).
// Java: AdminBrokerProcessor#getConsumeStats.
func (p *AdminBrokerProcessor) getConsumeStats(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.GetConsumeStatsRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("get consume stats", err)
	}
	topics := []string{h.Topic}
	if h.Topic == "" {
		topics = p.b.consumerOffsetManager.WhichTopicByConsumer(h.ConsumerGroup)
	}
	group := p.b.consumerManager.GetConsumerGroupInfo(h.ConsumerGroup)
	ms := p.b.messageStore
	cs := protocol.ConsumeStats{OffsetTable: map[primitive.MessageQueue]protocol.OffsetWrapper{}}
	for _, topic := range topics {
		tc := p.b.topicConfigManager.SelectTopicConfig(topic)
		if tc == nil {
			p.b.log.Warn("consumeStats, topic config not exist", "topic", topic)
			continue
		}
		if group != nil && len(group.SubscriptionTable) > 0 {
			if _, ok := group.FindSubscriptionData(topic); !ok {
				p.b.log.Warn("consumeStats, the consumer group not subscribe this topic", "group", h.ConsumerGroup, "topic", topic)
				continue
			}
		}
		for i := range tc.ReadQueueNums {
			mq := primitive.MessageQueue{Topic: topic, BrokerName: p.b.cfg.BrokerName, QueueID: i}
			o := protocol.OffsetWrapper{
				BrokerOffset:   int64(max(ms.GetMaxOffsetInQueue(topic, i), 0)),
				ConsumerOffset: int64(max(p.b.consumerOffsetManager.QueryOffset(h.ConsumerGroup, topic, i), 0)),
			}
			if o.ConsumerOffset > 0 {
				o.LastTimestamp = ms.GetMessageStoreTimeStamp(topic, i, store.QueueOffset(o.ConsumerOffset-1))
			}
			cs.OffsetTable[mq] = o
		}
	}
	return jsonBody(cs.Encode(), nil, "")
}

// getBrokerRuntimeInfo answers GET_BROKER_RUNTIME_INFO (28): a KVTable of the store's state,
// the keys mqadmin's brokerStatus and clusterList read. Java: AdminBrokerProcessor#getBrokerRuntimeInfo
// (prepareRuntimeInfo).
//
// msgPutTotalTodayNow and msgGetTotalTodayNow are the store's totals since it started,
// putTps and getTransferedTps its rates over 10, 60 and 600 s ("12.50 11.80 3.02",
// store.StoreStatsService).
//
// Deviation: there is no BrokerStats taking the totals at midnight, so the yesterday- and
// today-morning totals read "0".
func (p *AdminBrokerProcessor) getBrokerRuntimeInfo() *remoting.RemotingCommand {
	b, ms := p.b, p.b.messageStore
	minPhy, maxPhy := ms.GetMinPhyOffset(), ms.GetMaxPhyOffset()
	earliest := int64(0)
	if m, err := ms.LookMessageByOffset(minPhy); err == nil && maxPhy > minPhy {
		earliest = m.StoreTimestamp
	}
	ratio := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	up := b.clock.Now().Sub(p.boot)
	runtime := fmt.Sprintf("[ %d days, %d hours, %d minutes, %d seconds ]",
		int(up.Hours())/24, int(up.Hours())%24, int(up.Minutes())%60, int(up.Seconds())%60)
	t := map[string]string{
		"brokerVersionDesc":                    brokerVersionDesc,
		"bootTimestamp":                        strconv.FormatInt(p.boot.UnixMilli(), 10),
		"runtime":                              runtime,
		"brokerVersion":                        strconv.Itoa(int(remoting.DefaultVersion)),
		"brokerName":                           b.cfg.BrokerName,
		"brokerId":                             strconv.FormatInt(b.cfg.BrokerID, 10),
		"brokerRole":                           b.storeCfg.BrokerRole,
		"commitLogMinOffset":                   strconv.FormatInt(int64(minPhy), 10),
		"commitLogMaxOffset":                   strconv.FormatInt(int64(maxPhy), 10),
		"commitLogDiskRatio":                   ratio(ms.CommitLogDiskRatio()),
		"consumeQueueDiskRatio":                ratio(ms.ConsumeQueueDiskRatio()),
		"dispatchBehindBytes":                  strconv.FormatInt(ms.DispatchBehindBytes(), 10),
		"pageCacheLockTimeMills":               strconv.FormatInt(ms.LockTimeMills(), 10),
		"earliestMessageTimeStamp":             strconv.FormatInt(earliest, 10),
		"remainHowManyDataToFlush":             strconv.FormatInt(ms.RemainHowManyDataToFlush(), 10),
		"putTps":                               tps(ms.StoreStatsService(), true),
		"getTransferedTps":                     tps(ms.StoreStatsService(), false),
		"msgPutTotalTodayNow":                  strconv.FormatInt(ms.StoreStatsService().PutMessageTimesTotal(), 10),
		"msgGetTotalTodayNow":                  strconv.FormatInt(ms.StoreStatsService().GetMessageTransferedMsgCount(), 10),
		"msgPutTotalYesterdayMorning":          "0",
		"msgPutTotalTodayMorning":              "0",
		"msgGetTotalYesterdayMorning":          "0",
		"msgGetTotalTodayMorning":              "0",
		"sendThreadPoolQueueHeadWaitTimeMills": "0",
		"pullThreadPoolQueueHeadWaitTimeMills": "0",
	}
	if b.storeCfg.BrokerRole == store.Slave {
		t["masterAddr"] = b.storeCfg.HaMasterAddress
	}
	kv := protocol.KVTable{Table: t}
	return jsonBody(kv.Encode(), nil, "")
}

// tps formats the put (or get) rates over 10, 60 and 600 s as Java's runtime table does.
// Java: StoreStatsService#getPutTps(), #getGetTransferedTps().
func tps(s *store.StoreStatsService, put bool) string {
	var out []string
	for _, w := range []int{10, 60, 600} {
		p, g := s.TPS(w)
		if !put {
			p = g
		}
		out = append(out, strconv.FormatFloat(p, 'f', 2, 64))
	}
	return strings.Join(out, " ")
}

// queryTopicConsumeByWho answers QUERY_TOPIC_CONSUME_BY_WHO (300): the groups online on the
// topic and the groups with offsets on it, sorted. Java: AdminBrokerProcessor#queryTopicConsumeByWho.
func (p *AdminBrokerProcessor) queryTopicConsumeByWho(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.TopicRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("query topic consume by who", err)
	}
	set := map[string]bool{}
	for _, g := range p.b.consumerManager.QueryTopicConsumeByWho(h.Topic) {
		set[g] = true
	}
	for _, g := range p.b.consumerOffsetManager.WhichGroupByTopic(h.Topic) {
		set[g] = true
	}
	gl := protocol.GroupList{GroupList: slices.Sorted(maps.Keys(set))}
	if gl.GroupList == nil {
		gl.GroupList = []string{}
	}
	body, err := json.Marshal(&gl)
	return jsonBody(body, err, "")
}
