package namesrv

import (
	"fmt"
	"hash/crc32"
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// DefaultRequestProcessor answers every request the name server knows, by request code.
// Mirrors org.apache.rocketmq.namesrv.processor.DefaultRequestProcessor.
type DefaultRequestProcessor struct {
	remoting.NeverRejects
	c *NamesrvController
}

// ProcessRequest dispatches by request code. Unknown codes are answered
// REQUEST_CODE_NOT_SUPPORTED. Java: DefaultRequestProcessor#processRequest.
func (p *DefaultRequestProcessor) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	tr := p.c.tr
	if tr.Enabled() {
		tr.Step("DefaultRequestProcessor#processRequest", slog.Int("code", int(req.Code)))
	}
	switch req.Code {
	case protocol.PutKVConfig:
		return withHeader(req, p.putKVConfig)
	case protocol.GetKVConfig:
		return withHeader(req, p.getKVConfig)
	case protocol.DeleteKVConfig:
		return withHeader(req, p.deleteKVConfig)
	case protocol.QueryDataVersion:
		return withHeader(req, p.queryBrokerTopicConfig)
	case protocol.RegisterBroker:
		return withHeader(req, func(req *remoting.RemotingCommand, h *protocol.RegisterBrokerRequestHeader) *remoting.RemotingCommand {
			return p.registerBroker(ch, req, h)
		})
	case protocol.UnregisterBroker:
		return withHeader(req, p.unregisterBroker)
	case protocol.GetRouteinfoByTopic:
		return withHeader(req, p.getRouteInfoByTopic)
	case protocol.GetBrokerClusterInfo:
		return p.getBrokerClusterInfo()
	case protocol.GetAllTopicListFromNameserver:
		return p.getAllTopicList()
	case protocol.DeleteTopicInNamesrv:
		return withHeader(req, p.deleteTopicInNamesrv)
	case protocol.GetKVListByNamespace:
		return withHeader(req, p.getKVListByNamespace)
	case protocol.GetTopicsByCluster:
		return withHeader(req, p.getTopicsByCluster)
	}
	return remoting.NewNotSupportedResponse(req), nil
}

// registerBroker checks the body CRC, decodes the RegisterBrokerBody and records the broker.
// A slave's response carries its master's address and HA address; every response carries the
// ORDER_TOPIC_CONFIG namespace as a KVTable body when that namespace exists.
// Java: DefaultRequestProcessor#registerBroker (registerBrokerWithFilterServer).
func (p *DefaultRequestProcessor) registerBroker(ch *remoting.Channel, req *remoting.RemotingCommand, h *protocol.RegisterBrokerRequestHeader) *remoting.RemotingCommand {
	if h.BodyCrc32 != 0 {
		if crc := int32(crc32.ChecksumIEEE(req.Body) & 0x7FFFFFFF); crc != h.BodyCrc32 {
			return remoting.NewResponse(remoting.SystemError,
				fmt.Sprintf("crc32 not match: header %d, body %d", h.BodyCrc32, crc))
		}
	}
	if p.c.tr.Enabled() {
		p.c.tr.Step("DefaultRequestProcessor#registerBroker", slog.String("cluster", h.ClusterName),
			slog.String("brokerName", h.BrokerName), slog.Int64("brokerId", h.BrokerID))
	}
	body := &protocol.RegisterBrokerBody{}
	if len(req.Body) > 0 {
		var err error
		if body, err = protocol.DecodeRegisterBrokerBody(req.Body, h.Compressed); err != nil {
			return remoting.NewResponse(remoting.SystemError, "bad register body: "+err.Error())
		}
	}
	res := p.c.RouteInfoManager.RegisterBroker(h.ClusterName, h.BrokerAddr, h.BrokerName, h.BrokerID,
		h.HaServerAddr, &body.TopicConfigSerializeWrapper, body.FilterServerList, ch)
	resp := remoting.NewResponse(remoting.Success, "")
	resp.ExtFields = protocol.EncodeHeader(&protocol.RegisterBrokerResponseHeader{HaServerAddr: res.HaServerAddr, MasterAddr: res.MasterAddr})
	resp.Body = p.c.KVConfigManager.GetKVListByNamespace(protocol.NamespaceOrderTopicConfig)
	return resp
}

// unregisterBroker removes a broker address. Java: DefaultRequestProcessor#unregisterBroker.
func (p *DefaultRequestProcessor) unregisterBroker(req *remoting.RemotingCommand, h *protocol.UnRegisterBrokerRequestHeader) *remoting.RemotingCommand {
	p.c.RouteInfoManager.UnregisterBroker(h.ClusterName, h.BrokerAddr, h.BrokerName, h.BrokerID)
	return remoting.NewResponse(remoting.Success, "")
}

// getRouteInfoByTopic answers the TopicRouteData JSON of a topic, or TOPIC_NOT_EXIST. Requests
// older than 4.9.4 (version < 401, like the official Go client's 317) get fastjson's default
// form with unquoted numeric brokerAddrs keys; newer ones, or acceptStandardJsonOnly=true, get
// standard JSON. With orderMessageEnable, the route's orderTopicConf is the topic's item of the
// ORDER_TOPIC_CONFIG KV namespace ("brokerName:queueNums;..."), omitted when there is none.
// Java: DefaultRequestProcessor#getRouteInfoByTopic.
func (p *DefaultRequestProcessor) getRouteInfoByTopic(req *remoting.RemotingCommand, h *protocol.GetRouteInfoRequestHeader) *remoting.RemotingCommand {
	if p.c.tr.Enabled() {
		p.c.tr.Step("DefaultRequestProcessor#getRouteInfoByTopic", slog.String("topic", h.Topic))
	}
	route := p.c.RouteInfoManager.PickupTopicRouteData(h.Topic)
	p.c.metrics.RecordRoute(route != nil)
	if route == nil {
		return remoting.NewResponse(protocol.TopicNotExist,
			"No topic route info in name server for the topic: "+h.Topic)
	}
	if p.c.NamesrvConfig.OrderMessageEnable {
		route.OrderTopicConf, _ = p.c.KVConfigManager.GetKVConfig(protocol.NamespaceOrderTopicConfig, h.Topic)
	}
	resp := remoting.NewResponse(remoting.Success, "")
	if req.Version >= 401 || h.AcceptStandardJSONOnly {
		resp.Body = route.EncodeStandard()
	} else {
		resp.Body = route.Encode()
	}
	return resp
}

// getBrokerClusterInfo answers the ClusterInfo JSON. Java: DefaultRequestProcessor#getBrokerClusterInfo.
func (p *DefaultRequestProcessor) getBrokerClusterInfo() (*remoting.RemotingCommand, error) {
	resp := remoting.NewResponse(remoting.Success, "")
	resp.Body = p.c.RouteInfoManager.GetAllClusterInfo().Encode()
	return resp, nil
}

// getAllTopicList answers {"topicList":[...]}. Java: DefaultRequestProcessor#getAllTopicListFromNameserver.
func (p *DefaultRequestProcessor) getAllTopicList() (*remoting.RemotingCommand, error) {
	resp := remoting.NewResponse(remoting.Success, "")
	resp.Body = (&protocol.TopicList{TopicList: p.c.RouteInfoManager.GetAllTopicList()}).Encode()
	return resp, nil
}

// deleteTopicInNamesrv forgets a topic's queue data, everywhere or (with clusterName) on one
// cluster's brokers. Java: DefaultRequestProcessor#deleteTopicInNamesrv.
func (p *DefaultRequestProcessor) deleteTopicInNamesrv(req *remoting.RemotingCommand, h *protocol.DeleteTopicFromNamesrvRequestHeader) *remoting.RemotingCommand {
	if h.ClusterName != "" {
		p.c.RouteInfoManager.DeleteTopicInCluster(h.Topic, h.ClusterName)
	} else {
		p.c.RouteInfoManager.DeleteTopic(h.Topic)
	}
	return remoting.NewResponse(remoting.Success, "")
}

// getTopicsByCluster answers {"topicList":[...]}: the topics with queue data on the cluster's
// brokers. Java: DefaultRequestProcessor#getTopicsByCluster.
func (p *DefaultRequestProcessor) getTopicsByCluster(req *remoting.RemotingCommand, h *protocol.GetTopicsByClusterRequestHeader) *remoting.RemotingCommand {
	resp := remoting.NewResponse(remoting.Success, "")
	resp.Body = (&protocol.TopicList{TopicList: p.c.RouteInfoManager.GetTopicsByCluster(h.Cluster)}).Encode()
	return resp
}

// queryBrokerTopicConfig answers QUERY_DATA_VERSION: header changed=true when the broker's
// DataVersion (the request body) differs from the one it last registered, body = that stored
// DataVersion (none for an unknown broker). An unchanged answer also refreshes the broker's
// liveness, so a broker with forceRegister=false stays alive without re-registering.
// Java: DefaultRequestProcessor#queryBrokerTopicConfig.
func (p *DefaultRequestProcessor) queryBrokerTopicConfig(req *remoting.RemotingCommand, h *protocol.QueryDataVersionRequestHeader) *remoting.RemotingCommand {
	dv, err := protocol.DecodeDataVersion(req.Body)
	if err != nil {
		return remoting.NewResponse(remoting.SystemError, err.Error())
	}
	rim := p.c.RouteInfoManager
	changed := rim.IsBrokerTopicConfigChanged(h.BrokerAddr, dv)
	if !changed {
		rim.UpdateBrokerInfoUpdateTimestamp(h.BrokerAddr)
	}
	resp := remoting.NewResponse(remoting.Success, "")
	if stored, ok := rim.QueryBrokerTopicConfig(h.BrokerAddr); ok {
		resp.Body = stored.Encode()
	}
	resp.ExtFields = protocol.EncodeHeader(&protocol.QueryDataVersionResponseHeader{Changed: changed})
	return resp
}

// putKVConfig sets one KV-config item and persists the table. Java: DefaultRequestProcessor#putKVConfig.
//
// Deviation: when writing kvConfigPath fails, Java still answers SUCCESS (it only logs); we
// answer SYSTEM_ERROR naming the failure. The item is set in memory either way, as in Java.
func (p *DefaultRequestProcessor) putKVConfig(req *remoting.RemotingCommand, h *protocol.PutKVConfigRequestHeader) *remoting.RemotingCommand {
	return successOr(p.c.KVConfigManager.PutKVConfig(h.Namespace, h.Key, h.Value))
}

// getKVConfig answers the item's value in the header, or QUERY_NOT_FOUND.
// Java: DefaultRequestProcessor#getKVConfig.
func (p *DefaultRequestProcessor) getKVConfig(req *remoting.RemotingCommand, h *protocol.GetKVConfigRequestHeader) *remoting.RemotingCommand {
	v, ok := p.c.KVConfigManager.GetKVConfig(h.Namespace, h.Key)
	if !ok {
		return remoting.NewResponse(protocol.QueryNotFound,
			"No config item, Namespace: "+h.Namespace+" Key: "+h.Key)
	}
	resp := remoting.NewResponse(remoting.Success, "")
	resp.ExtFields = protocol.EncodeHeader(&protocol.GetKVConfigResponseHeader{Value: v})
	return resp
}

// deleteKVConfig removes one item and persists the table (same Deviation as putKVConfig).
// Java: DefaultRequestProcessor#deleteKVConfig.
func (p *DefaultRequestProcessor) deleteKVConfig(req *remoting.RemotingCommand, h *protocol.DeleteKVConfigRequestHeader) *remoting.RemotingCommand {
	return successOr(p.c.KVConfigManager.DeleteKVConfig(h.Namespace, h.Key))
}

// getKVListByNamespace answers a namespace's items as a KVTable body, or QUERY_NOT_FOUND.
// Java: DefaultRequestProcessor#getKVListByNamespace.
func (p *DefaultRequestProcessor) getKVListByNamespace(req *remoting.RemotingCommand, h *protocol.GetKVListByNamespaceRequestHeader) *remoting.RemotingCommand {
	body := p.c.KVConfigManager.GetKVListByNamespace(h.Namespace)
	if body == nil {
		return remoting.NewResponse(protocol.QueryNotFound, "No config item, Namespace: "+h.Namespace)
	}
	resp := remoting.NewResponse(remoting.Success, "")
	resp.Body = body
	return resp
}

// withHeader decodes req's custom header into a new H and hands both to handle; a header that
// does not decode is answered SYSTEM_ERROR with the decoder's text (ErrMissingField,
// ErrBadField). Java: RemotingCommand#decodeCommandCustomHeader, whose exception the remoting
// layer answers SYSTEM_ERROR.
func withHeader[H any](req *remoting.RemotingCommand, handle func(*remoting.RemotingCommand, *H) *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	h := new(H)
	if err := protocol.DecodeHeader(req.ExtFields, h); err != nil {
		return systemError(err), nil
	}
	return handle(req, h), nil
}

// systemError is the SYSTEM_ERROR answer whose remark is err's text (a header that does not
// decode, a KV file that cannot be written).
func systemError(err error) *remoting.RemotingCommand {
	return remoting.NewResponse(remoting.SystemError, err.Error())
}

// successOr answers SUCCESS, or SYSTEM_ERROR when err is not nil.
func successOr(err error) *remoting.RemotingCommand {
	if err != nil {
		return systemError(err)
	}
	return remoting.NewResponse(remoting.Success, "")
}
