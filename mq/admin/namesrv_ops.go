package admin

import (
	"context"
	"fmt"
	"slices"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/fastjson"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// ExamineBrokerClusterInfo asks a name server for the clusters and their brokers
// (GET_BROKER_CLUSTER_INFO, 106). Java: DefaultMQAdminExt#examineBrokerClusterInfo.
func (a *DefaultMQAdminExt) ExamineBrokerClusterInfo(ctx context.Context) (*protocol.ClusterInfo, error) {
	resp, err := a.invokeNamesrv(ctx, remoting.NewRequest(protocol.GetBrokerClusterInfo, nil, nil))
	if err != nil {
		return nil, err
	}
	return protocol.DecodeClusterInfo(resp.Body)
}

// ExamineTopicRouteInfo asks a name server for topic's route (GET_ROUTEINFO_BY_TOPIC, 105);
// a topic no broker serves is an error with code TOPIC_NOT_EXIST (17).
// Java: DefaultMQAdminExt#examineTopicRouteInfo.
func (a *DefaultMQAdminExt) ExamineTopicRouteInfo(ctx context.Context, topic string) (*protocol.TopicRouteData, error) {
	ctx, cancel := a.ctx(ctx)
	defer cancel()
	return a.api.GetTopicRouteInfoFromNameServer(ctx, topic, false)
}

// topicList decodes a TopicList answer of code (with header ext).
func (a *DefaultMQAdminExt) topicList(ctx context.Context, code int32, ext map[string]string) ([]string, error) {
	resp, err := a.invokeNamesrv(ctx, remoting.NewRequest(code, ext, nil))
	if err != nil {
		return nil, err
	}
	var tl protocol.TopicList
	if err := fastjson.Unmarshal(resp.Body, &tl); err != nil {
		return nil, fmt.Errorf("%w: topic list: %v", protocol.ErrBadBody, err)
	}
	slices.Sort(tl.TopicList)
	return tl.TopicList, nil
}

// FetchAllTopicList lists every topic the name server knows, sorted
// (GET_ALL_TOPIC_LIST_FROM_NAMESERVER, 206). Java: DefaultMQAdminExt#fetchAllTopicList.
func (a *DefaultMQAdminExt) FetchAllTopicList(ctx context.Context) ([]string, error) {
	return a.topicList(ctx, protocol.GetAllTopicListFromNameserver, nil)
}

// FetchTopicsByCluster lists the topics with queues on cluster's brokers, sorted
// (GET_TOPICS_BY_CLUSTER, 224). Java: DefaultMQAdminExt#fetchTopicsByCLuster.
func (a *DefaultMQAdminExt) FetchTopicsByCluster(ctx context.Context, cluster string) ([]string, error) {
	h := protocol.GetTopicsByClusterRequestHeader{Cluster: cluster}
	return a.topicList(ctx, protocol.GetTopicsByCluster, protocol.EncodeHeader(&h))
}

// DeleteTopicInNameServer makes every name server forget topic (DELETE_TOPIC_IN_NAMESRV, 216),
// only cluster's queue data when cluster is set. Every name server is asked; the first error
// is returned. Java: DefaultMQAdminExt#deleteTopicInNameServer.
func (a *DefaultMQAdminExt) DeleteTopicInNameServer(ctx context.Context, topic, cluster string) error {
	h := protocol.DeleteTopicFromNamesrvRequestHeader{Topic: topic, ClusterName: cluster}
	var first error
	for _, addr := range a.namesrvs {
		if _, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.DeleteTopicInNamesrv, protocol.EncodeHeader(&h), nil)); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// MasterAddrsOfCluster returns the master address of every broker of cluster, sorted by broker
// name; an unknown cluster is an error. Java: CommandUtil#fetchMasterAddrByClusterName.
func MasterAddrsOfCluster(ci *protocol.ClusterInfo, cluster string) ([]string, error) {
	names, ok := ci.ClusterAddrTable[cluster]
	if !ok {
		return nil, fmt.Errorf("Make sure the specified clusterName exists or the name server connected to is correct: cluster %q", cluster)
	}
	names = slices.Sorted(slices.Values(names))
	var out []string
	for _, n := range names {
		if bd := ci.BrokerAddrTable[n]; bd != nil && bd.MasterAddr() != "" {
			out = append(out, bd.MasterAddr())
		}
	}
	return out, nil
}

// CreateOrUpdateOrderConf stores topic's order configuration ("brokerName:queueNums;...") in
// every name server's ORDER_TOPIC_CONFIG namespace (PUT_KV_CONFIG, 100), which a name server
// with orderMessageEnable puts into the topic's route. Java: DefaultMQAdminExt#createOrUpdateOrderConf.
func (a *DefaultMQAdminExt) CreateOrUpdateOrderConf(ctx context.Context, topic, orderConf string) error {
	h := protocol.PutKVConfigRequestHeader{Namespace: protocol.NamespaceOrderTopicConfig, Key: topic, Value: orderConf}
	for _, addr := range a.namesrvs {
		if _, err := a.invoke(ctx, addr, remoting.NewRequest(protocol.PutKVConfig, protocol.EncodeHeader(&h), nil)); err != nil {
			return err
		}
	}
	return nil
}
