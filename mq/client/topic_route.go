package client

import (
	"cmp"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/trace"
)

// TopicRouteData2TopicPublishInfo builds a producer's view of a route. With an orderTopicConf
// ("brokerName:num;brokerName:num") the queues are exactly those, in that order, and the info is
// an order topic. Otherwise the queue data are taken in broker-name order, and every writable
// one whose broker has a master address contributes queues 0..writeQueueNums-1. The info keeps
// the route (a clone) for GetQueueIDByBroker; its index starts at seed; it traces to tr.
// Java: MQClientInstance#topicRouteData2TopicPublishInfo.
func TopicRouteData2TopicPublishInfo(topic string, route *protocol.TopicRouteData, seed int32, tr *trace.Tracer) *TopicPublishInfo {
	info := &TopicPublishInfo{
		SendWhichQueue: NewThreadLocalIndex(seed),
		TopicRouteData: route.Clone(),
		tr:             tr,
	}
	if route.OrderTopicConf != "" {
		for _, broker := range strings.Split(route.OrderTopicConf, ";") {
			name, num, ok := strings.Cut(broker, ":")
			if !ok {
				continue
			}
			n, err := strconv.Atoi(num)
			if err != nil {
				continue
			}
			for i := range n {
				info.MessageQueueList = append(info.MessageQueueList, primitive.MessageQueue{Topic: topic, BrokerName: name, QueueID: int32(i)})
			}
		}
		info.OrderTopic = true
		return info
	}
	for _, qd := range sortedQueueDatas(route.QueueDatas) {
		if !protocol.IsWriteable(qd.Perm) {
			continue
		}
		bd := findBrokerData(route, qd.BrokerName)
		if bd == nil {
			continue
		}
		if _, ok := bd.BrokerAddrs[protocol.MasterID]; !ok {
			continue
		}
		for i := range qd.WriteQueueNums {
			info.MessageQueueList = append(info.MessageQueueList, primitive.MessageQueue{Topic: topic, BrokerName: qd.BrokerName, QueueID: i})
		}
	}
	return info
}

// TopicRouteData2TopicSubscribeInfo returns a consumer's view of a route: queues
// 0..readQueueNums-1 of every readable queue data, in broker-name order.
// Java: MQClientInstance#topicRouteData2TopicSubscribeInfo (a HashSet there; ordered here).
func TopicRouteData2TopicSubscribeInfo(topic string, route *protocol.TopicRouteData) []primitive.MessageQueue {
	var out []primitive.MessageQueue
	for _, qd := range sortedQueueDatas(route.QueueDatas) {
		if !protocol.IsReadable(qd.Perm) {
			continue
		}
		for i := range qd.ReadQueueNums {
			out = append(out, primitive.MessageQueue{Topic: topic, BrokerName: qd.BrokerName, QueueID: i})
		}
	}
	return out
}

func findBrokerData(route *protocol.TopicRouteData, name string) *protocol.BrokerData {
	for _, bd := range route.BrokerDatas {
		if bd.BrokerName == name {
			return bd
		}
	}
	return nil
}

// sortedQueueDatas returns the queue data sorted by broker name (QueueData#compareTo).
func sortedQueueDatas(qds []*protocol.QueueData) []*protocol.QueueData {
	out := slices.Clone(qds)
	slices.SortStableFunc(out, func(a, b *protocol.QueueData) int { return cmp.Compare(a.BrokerName, b.BrokerName) })
	return out
}

// topicRouteDataIsChange reports whether two routes differ once their queue and broker data are
// sorted by broker name; a missing route counts as a change.
// Java: MQClientInstance#topicRouteDataIsChange.
func topicRouteDataIsChange(old, now *protocol.TopicRouteData) bool {
	if old == nil || now == nil {
		return true
	}
	return !reflect.DeepEqual(normalizedRoute(old), normalizedRoute(now))
}

func normalizedRoute(r *protocol.TopicRouteData) *protocol.TopicRouteData {
	c := r.Clone()
	c.QueueDatas = sortedQueueDatas(c.QueueDatas)
	slices.SortStableFunc(c.BrokerDatas, func(a, b *protocol.BrokerData) int { return cmp.Compare(a.BrokerName, b.BrokerName) })
	if len(c.QueueDatas) == 0 {
		c.QueueDatas = nil
	}
	if len(c.BrokerDatas) == 0 {
		c.BrokerDatas = nil
	}
	return c
}
