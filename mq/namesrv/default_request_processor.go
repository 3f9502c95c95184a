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
	c *NamesrvController
}

// RejectRequest implements remoting.RequestProcessor: the name server never rejects.
func (p *DefaultRequestProcessor) RejectRequest() bool { return false }

// ProcessRequest dispatches by request code. Unknown codes are answered
// REQUEST_CODE_NOT_SUPPORTED. Java: DefaultRequestProcessor#processRequest.
func (p *DefaultRequestProcessor) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	tr := p.c.tr
	if tr.Enabled() {
		tr.Step("DefaultRequestProcessor#processRequest", slog.Int("code", int(req.Code)))
	}
	switch req.Code {
	case protocol.RegisterBroker:
		return p.registerBroker(ch, req)
	case protocol.UnregisterBroker:
		return p.unregisterBroker(req)
	case protocol.GetRouteinfoByTopic:
		return p.getRouteInfoByTopic(req)
	case protocol.GetBrokerClusterInfo:
		return p.getBrokerClusterInfo()
	case protocol.GetAllTopicListFromNameserver:
		return p.getAllTopicList()
	}
	return remoting.NewResponse(remoting.RequestCodeNotSupported,
		fmt.Sprintf("request type %d not supported", req.Code)), nil
}

// registerBroker checks the body CRC, decodes the RegisterBrokerBody and records the broker.
// A slave's response carries its master's address and HA address.
// Java: DefaultRequestProcessor#registerBroker (registerBrokerWithFilterServer).
func (p *DefaultRequestProcessor) registerBroker(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	var h protocol.RegisterBrokerRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return remoting.NewResponse(remoting.SystemError, err.Error()), nil
	}
	if h.BodyCrc32 != 0 {
		if crc := int32(crc32.ChecksumIEEE(req.Body) & 0x7FFFFFFF); crc != h.BodyCrc32 {
			return remoting.NewResponse(remoting.SystemError,
				fmt.Sprintf("crc32 not match: header %d, body %d", h.BodyCrc32, crc)), nil
		}
	}
	if p.c.tr.Enabled() {
		p.c.tr.Step("DefaultRequestProcessor#registerBroker", slog.String("brokerName", h.BrokerName),
			slog.String("brokerAddr", h.BrokerAddr), slog.Int64("brokerId", h.BrokerID))
	}
	body := &protocol.RegisterBrokerBody{}
	if len(req.Body) > 0 {
		var err error
		if body, err = protocol.DecodeRegisterBrokerBody(req.Body, h.Compressed); err != nil {
			return remoting.NewResponse(remoting.SystemError, "bad register body: "+err.Error()), nil
		}
	}
	res := p.c.RouteInfoManager.RegisterBroker(h.ClusterName, h.BrokerAddr, h.BrokerName, h.BrokerID,
		h.HaServerAddr, &body.TopicConfigSerializeWrapper, body.FilterServerList, ch)
	resp := remoting.NewResponse(remoting.Success, "")
	resp.ExtFields = (&protocol.RegisterBrokerResponseHeader{HaServerAddr: res.HaServerAddr, MasterAddr: res.MasterAddr}).Encode()
	return resp, nil
}

// unregisterBroker removes a broker address. Java: DefaultRequestProcessor#unregisterBroker.
func (p *DefaultRequestProcessor) unregisterBroker(req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	var h protocol.UnRegisterBrokerRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return remoting.NewResponse(remoting.SystemError, err.Error()), nil
	}
	p.c.RouteInfoManager.UnregisterBroker(h.ClusterName, h.BrokerAddr, h.BrokerName, h.BrokerID)
	return remoting.NewResponse(remoting.Success, ""), nil
}

// getRouteInfoByTopic answers the TopicRouteData JSON of a topic, or TOPIC_NOT_EXIST. Requests
// older than 4.9.4 (version < 401, like the official Go client's 317) get fastjson's default
// form with unquoted numeric brokerAddrs keys; newer ones, or acceptStandardJsonOnly=true, get
// standard JSON. Java: DefaultRequestProcessor#getRouteInfoByTopic.
func (p *DefaultRequestProcessor) getRouteInfoByTopic(req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	var h protocol.GetRouteInfoRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return remoting.NewResponse(remoting.SystemError, err.Error()), nil
	}
	if p.c.tr.Enabled() {
		p.c.tr.Step("DefaultRequestProcessor#getRouteInfoByTopic", slog.String("topic", h.Topic))
	}
	route := p.c.RouteInfoManager.PickupTopicRouteData(h.Topic)
	if route == nil {
		return remoting.NewResponse(protocol.TopicNotExist,
			"No topic route info in name server for the topic: "+h.Topic), nil
	}
	resp := remoting.NewResponse(remoting.Success, "")
	if req.Version >= 401 || req.ExtFields["acceptStandardJsonOnly"] == "true" {
		resp.Body = route.EncodeStandard()
	} else {
		resp.Body = route.Encode()
	}
	return resp, nil
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
