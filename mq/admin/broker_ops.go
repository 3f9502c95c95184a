package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/fastjson"
	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// CreateAndUpdateTopicConfig creates or replaces tc on the broker at addr
// (UPDATE_AND_CREATE_TOPIC, 17); the broker registers it with the name servers before it
// answers. Java: DefaultMQAdminExt#createAndUpdateTopicConfig.
func (a *DefaultMQAdminExt) CreateAndUpdateTopicConfig(ctx context.Context, addr string, tc protocol.TopicConfig) error {
	if tc.TopicFilterType == "" {
		tc.TopicFilterType = protocol.SingleTag
	}
	h := protocol.CreateTopicRequestHeader{Topic: tc.TopicName, DefaultTopic: protocol.DefaultTopic,
		ReadQueueNums: tc.ReadQueueNums, WriteQueueNums: tc.WriteQueueNums, Perm: tc.Perm,
		TopicFilterType: tc.TopicFilterType, TopicSysFlag: tc.TopicSysFlag, Order: tc.Order}
	_, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.UpdateAndCreateTopic, protocol.EncodeHeader(&h), nil))
	return err
}

// DeleteTopicInBroker removes topic's config from the brokers at addrs (DELETE_TOPIC_IN_BROKER,
// 215); the first error is returned. Java: DefaultMQAdminExt#deleteTopicInBroker.
func (a *DefaultMQAdminExt) DeleteTopicInBroker(ctx context.Context, addrs []string, topic string) error {
	h := protocol.DeleteTopicRequestHeader{Topic: topic}
	for _, addr := range addrs {
		if _, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.DeleteTopicInBroker, protocol.EncodeHeader(&h), nil)); err != nil {
			return err
		}
	}
	return nil
}

// GetAllTopicConfig returns the broker's whole topic table (GET_ALL_TOPIC_CONFIG, 21).
// Java: MQClientAPIImpl#getAllTopicConfig.
func (a *DefaultMQAdminExt) GetAllTopicConfig(ctx context.Context, addr string) (*protocol.TopicConfigSerializeWrapper, error) {
	resp, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.GetAllTopicConfig, nil, nil))
	if err != nil {
		return nil, err
	}
	var w protocol.TopicConfigSerializeWrapper
	if err := fastjson.Unmarshal(resp.Body, &w); err != nil {
		return nil, fmt.Errorf("%w: topic config table: %v", protocol.ErrBadBody, err)
	}
	return &w, nil
}

// FetchBrokerRuntimeStats returns the broker's runtime KVTable (GET_BROKER_RUNTIME_INFO, 28).
// Java: DefaultMQAdminExt#fetchBrokerRuntimeStats.
func (a *DefaultMQAdminExt) FetchBrokerRuntimeStats(ctx context.Context, addr string) (map[string]string, error) {
	resp, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.GetBrokerRuntimeInfo, nil, nil))
	if err != nil {
		return nil, err
	}
	kv, err := protocol.DecodeKVTable(resp.Body)
	if err != nil {
		return nil, err
	}
	return kv.Table, nil
}

// brokersOf returns the master address of every broker in topic's route, by broker name.
func (a *DefaultMQAdminExt) brokersOf(ctx context.Context, topic string) (map[string]string, error) {
	route, err := a.ExamineTopicRouteInfo(ctx, topic)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, bd := range route.BrokerDatas {
		if addr := bd.MasterAddr(); addr != "" {
			out[bd.BrokerName] = addr
		}
	}
	return out, nil
}

// askBrokers sends the request code with header ext to the master of every broker of topic's
// route, in broker-name order, and hands each SUCCESS answer to each; the first error (a
// broker's answer, a transport failure, or each's) stops it.
func (a *DefaultMQAdminExt) askBrokers(ctx context.Context, topic string, code int32, ext map[string]string,
	each func(addr string, resp *remoting.RemotingCommand) error) error {
	brokers, err := a.brokersOf(ctx, topic)
	if err != nil {
		return err
	}
	for _, addr := range sortedValues(brokers) {
		resp, err := a.invoke(ctx, addr, remoting.NewRequest(code, ext, nil))
		if err == nil {
			err = each(addr, resp)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ExamineTopicStats merges every master's GET_TOPIC_STATS_INFO (202) for topic: min and max
// queue offsets and last store time per queue. Java: DefaultMQAdminExt#examineTopicStats.
func (a *DefaultMQAdminExt) ExamineTopicStats(ctx context.Context, topic string) (*protocol.TopicStatsTable, error) {
	out := &protocol.TopicStatsTable{OffsetTable: map[primitive.MessageQueue]protocol.TopicOffset{}}
	h := protocol.TopicRequestHeader{Topic: topic}
	err := a.askBrokers(ctx, topic, protocol.GetTopicStatsInfo, protocol.EncodeHeader(&h), func(_ string, resp *remoting.RemotingCommand) error {
		t, err := protocol.DecodeTopicStatsTable(resp.Body)
		if err == nil {
			maps.Copy(out.OffsetTable, t.OffsetTable)
		}
		return err
	})
	return out, err
}

// ExamineConsumeStats merges every master's GET_CONSUME_STATS (208) for group (on topic, or on
// every topic it consumes when topic is ""): the brokers are those of the group's retry
// topic %RETRY%group, which every consumer of the group creates. Java:
// DefaultMQAdminExt#examineConsumeStats.
func (a *DefaultMQAdminExt) ExamineConsumeStats(ctx context.Context, group, topic string) (*protocol.ConsumeStats, error) {
	out := &protocol.ConsumeStats{OffsetTable: map[primitive.MessageQueue]protocol.OffsetWrapper{}}
	h := protocol.GetConsumeStatsRequestHeader{ConsumerGroup: group, Topic: topic}
	err := a.askBrokers(ctx, protocol.GetRetryTopic(group), protocol.GetConsumeStats, protocol.EncodeHeader(&h), func(_ string, resp *remoting.RemotingCommand) error {
		cs, err := protocol.DecodeConsumeStats(resp.Body)
		if err == nil {
			out.ConsumeTps += cs.ConsumeTps
			maps.Copy(out.OffsetTable, cs.OffsetTable)
		}
		return err
	})
	return out, err
}

// ExamineConsumerConnectionInfo asks the brokers of group's retry topic for its connections
// (GET_CONSUMER_CONNECTION_LIST, 203); the first broker that knows the group answers. A group
// no broker knows online is the error CONSUMER_NOT_ONLINE (206).
// Java: DefaultMQAdminExt#examineConsumerConnectionInfo.
func (a *DefaultMQAdminExt) ExamineConsumerConnectionInfo(ctx context.Context, group string) (*protocol.ConsumerConnection, error) {
	brokers, err := a.brokersOf(ctx, protocol.GetRetryTopic(group))
	if err != nil {
		return nil, err
	}
	var first *protocol.ConsumerConnection
	last, bad := askEach(ctx, a, brokers, protocol.GetConsumerConnectionList, &protocol.GetConsumerConnectionListRequestHeader{ConsumerGroup: group},
		func(cc *protocol.ConsumerConnection) bool { first = cc; return false })
	switch {
	case bad != nil:
		return nil, bad
	case first == nil:
		return nil, last
	}
	return first, nil
}

// askEach sends the request code with header h to each of brokers' addresses, in address
// order, and hands each answer's JSON body, decoded as T, to take until take returns false.
// It returns the last broker's failure (nil when none failed) and, apart, a body that does
// not decode, which ends the loop.
func askEach[T any](ctx context.Context, a *DefaultMQAdminExt, brokers map[string]string, code int32, h any,
	take func(*T) bool) (last, bad error) {
	for _, addr := range sortedValues(brokers) {
		resp, err := a.invoke(ctx, addr, remoting.NewRequest(code, protocol.EncodeHeader(h), nil))
		if err != nil {
			last = err
			continue
		}
		var v T
		if err := protocol.DecodeJSONBody(resp.Body, &v); err != nil {
			return last, err
		}
		if !take(&v) {
			break
		}
	}
	return last, nil
}

// ExamineProducerConnectionInfo asks the brokers of topic for group's producer connections
// (GET_PRODUCER_CONNECTION_LIST, 204), merged. Java: DefaultMQAdminExt#examineProducerConnectionInfo.
func (a *DefaultMQAdminExt) ExamineProducerConnectionInfo(ctx context.Context, group, topic string) (*protocol.ProducerConnection, error) {
	brokers, err := a.brokersOf(ctx, topic)
	if err != nil {
		return nil, err
	}
	out := &protocol.ProducerConnection{}
	seen := map[string]bool{}
	last, bad := askEach(ctx, a, brokers, protocol.GetProducerConnectionList, &protocol.GetProducerConnectionListRequestHeader{ProducerGroup: group},
		func(pc *protocol.ProducerConnection) bool {
			for _, c := range pc.ConnectionSet {
				if !seen[c.ClientID] {
					seen[c.ClientID] = true
					out.ConnectionSet = append(out.ConnectionSet, c)
				}
			}
			return true
		})
	switch {
	case bad != nil:
		return nil, bad
	case len(out.ConnectionSet) == 0:
		return nil, last
	}
	return out, nil
}

// GetBrokerConfig returns the broker's effective configuration (GET_BROKER_CONFIG, 26) as
// key → value. Java: DefaultMQAdminExt#getBrokerConfig.
func (a *DefaultMQAdminExt) GetBrokerConfig(ctx context.Context, addr string) (map[string]string, error) {
	resp, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.GetBrokerConfig, nil, nil))
	if err != nil {
		return nil, err
	}
	return conf.ParseProperties(strings.NewReader(string(resp.Body)))
}

// UpdateBrokerConfig sends props to the broker (UPDATE_BROKER_CONFIG, 25) as properties text
// and returns the remark of its SUCCESS answer: our broker says there where it wrote the values
// and that they apply on a restart (its Deviation: it does not apply them live); RocketMQ's
// broker answers none (""). A refusal is a *remoting.RemoteError with the broker's remark.
// Java: DefaultMQAdminExt#updateBrokerConfig.
func (a *DefaultMQAdminExt) UpdateBrokerConfig(ctx context.Context, addr string, props map[string]string) (note string, err error) {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, "%s=%s\n", k, props[k])
	}
	resp, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.UpdateBrokerConfig, nil, []byte(b.String())))
	if err != nil {
		return "", err
	}
	return resp.Remark, nil
}

// CreateAndUpdateSubscriptionGroupConfig creates or replaces a consumer group's config on the
// broker (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, 200); config is any value that marshals to
// SubscriptionGroupConfig's JSON (broker.SubscriptionGroupConfig).
// Java: DefaultMQAdminExt#createAndUpdateSubscriptionGroupConfig.
func (a *DefaultMQAdminExt) CreateAndUpdateSubscriptionGroupConfig(ctx context.Context, addr string, config any) error {
	body, err := json.Marshal(config)
	if err != nil {
		return err
	}
	_, err = a.invoke(ctx, addr, remoting.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, body))
	return err
}

// DeleteSubscriptionGroup removes group's config from the broker (DELETE_SUBSCRIPTIONGROUP,
// 207), and its offsets too with removeOffset. Java: DefaultMQAdminExt#deleteSubscriptionGroup.
func (a *DefaultMQAdminExt) DeleteSubscriptionGroup(ctx context.Context, addr, group string, removeOffset bool) error {
	h := protocol.DeleteSubscriptionGroupRequestHeader{GroupName: group, RemoveOffset: removeOffset}
	_, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.DeleteSubscriptionGroup, protocol.EncodeHeader(&h), nil))
	return err
}

// GetAllSubscriptionGroup returns the broker's subscription groups as raw JSON per group
// (GET_ALL_SUBSCRIPTIONGROUP_CONFIG, 201). Java: DefaultMQAdminExt#getAllSubscriptionGroup.
func (a *DefaultMQAdminExt) GetAllSubscriptionGroup(ctx context.Context, addr string) (map[string]json.RawMessage, error) {
	resp, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.GetAllSubscriptionGroupConfig, nil, nil))
	if err != nil {
		return nil, err
	}
	var w struct {
		SubscriptionGroupTable map[string]json.RawMessage `json:"subscriptionGroupTable"`
	}
	if err := fastjson.Unmarshal(resp.Body, &w); err != nil {
		return nil, fmt.Errorf("%w: subscription groups: %v", protocol.ErrBadBody, err)
	}
	return w.SubscriptionGroupTable, nil
}

// QueryTopicConsumeByWho merges the brokers' QUERY_TOPIC_CONSUME_BY_WHO (300) for topic: the
// groups that subscribe it or have offsets on it, sorted. Java: DefaultMQAdminExt#queryTopicConsumeByWho.
func (a *DefaultMQAdminExt) QueryTopicConsumeByWho(ctx context.Context, topic string) ([]string, error) {
	h := protocol.TopicRequestHeader{Topic: topic}
	set := map[string]bool{}
	err := a.askBrokers(ctx, topic, protocol.QueryTopicConsumeByWho, protocol.EncodeHeader(&h), func(_ string, resp *remoting.RemotingCommand) error {
		var gl protocol.GroupList
		if err := protocol.DecodeJSONBody(resp.Body, &gl); err != nil {
			return err
		}
		for _, g := range gl.GroupList {
			set[g] = true
		}
		return nil
	})
	return sortedKeys(set), err
}

// sortedValues returns m's values ordered by key.
func sortedValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

// sortedKeys returns m's keys, sorted.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
