package broker

import (
	"fmt"
	"log/slog"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// ClientManageProcessor answers HEART_BEAT (34), UNREGISTER_CLIENT (35) and
// CHECK_CLIENT_CONFIG (46). Mirrors org.apache.rocketmq.broker.processor.ClientManageProcessor.
type ClientManageProcessor struct {
	remoting.NeverRejects
	b *BrokerController
}

// NewClientManageProcessor returns the processor of b.
func NewClientManageProcessor(b *BrokerController) *ClientManageProcessor {
	return &ClientManageProcessor{b: b}
}

// ProcessRequest implements remoting.RequestProcessor.
// Java: ClientManageProcessor#processRequest.
func (p *ClientManageProcessor) ProcessRequest(ch *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
	switch req.Code {
	case protocol.HeartBeat:
		return p.heartBeat(ch, req), nil
	case protocol.UnregisterClient:
		return p.unregisterClient(ch, req), nil
	case protocol.CheckClientConfig:
		// Only TAG filtering exists, which needs no check. Java: checkClientConfig.
		return remoting.NewResponse(protocol.Success, ""), nil
	}
	return remoting.NewNotSupportedResponse(req), nil
}

// heartBeat registers the client's consumer and producer groups on this channel. Per consumer
// group: find or auto-create the subscription group; create %RETRY%<group> (retryQueueNums
// queues, perm 6; a new topic is registered with the name servers at once); register the
// channel and subscriptions (their tag codes rebuilt with Java's hashing); per producer group:
// register the channel. Java: ClientManageProcessor#heartBeat.
func (p *ClientManageProcessor) heartBeat(ch *remoting.Channel, req *remoting.RemotingCommand) *remoting.RemotingCommand {
	b := p.b
	hb, err := protocol.DecodeHeartbeatData(req.Body)
	if err != nil {
		return remoting.NewResponse(protocol.SystemError, fmt.Sprintf("bad heartbeat body: %v", err))
	}
	if tr := b.tr; tr.Enabled() {
		// The clientID is "ip@instanceName" (the PID when the client names no instance): a
		// chapter that wants the same log every run names its clients' instances.
		tr.Step("ClientManageProcessor#heartBeat", slog.String("clientId", hb.ClientID),
			slog.Int("consumerGroups", len(hb.ConsumerDataSet)), slog.Int("producerGroups", len(hb.ProducerDataSet)))
	}
	info := ClientChannelInfo{Channel: ch, ClientID: hb.ClientID, Language: req.Language, Version: req.Version}
	for _, data := range hb.ConsumerDataSet {
		notify := true
		if sgc := b.subscriptionGroupManager.FindSubscriptionGroupConfig(data.GroupName); sgc != nil {
			notify = sgc.NotifyConsumerIdsChangedEnable
			var topicSysFlag int32
			if data.UnitMode {
				topicSysFlag = buildTopicSysFlag(false, true)
			}
			b.topicConfigManager.CreateTopicInSendMessageBackMethod(protocol.GetRetryTopic(data.GroupName),
				sgc.RetryQueueNums, protocol.PermWrite|protocol.PermRead, topicSysFlag)
		}
		subs := make([]protocol.SubscriptionData, 0, len(data.SubscriptionDataSet))
		for _, s := range data.SubscriptionDataSet {
			subs = append(subs, rebuildTagCodes(s))
		}
		changed := b.consumerManager.RegisterConsumer(data.GroupName, info, string(data.ConsumeType),
			string(data.MessageModel), string(data.ConsumeFromWhere), subs, notify)
		if changed {
			b.log.Info("registerConsumer info changed", "group", data.GroupName, "clientId", hb.ClientID,
				"remoteAddr", ch.RemoteAddr())
		}
	}
	for _, data := range hb.ProducerDataSet {
		b.producerManager.RegisterProducer(data.GroupName, info)
	}
	return remoting.NewResponse(protocol.Success, "")
}

// unregisterClient removes the channel from the producer and consumer group named in the
// header. Java: ClientManageProcessor#unregisterClient.
func (p *ClientManageProcessor) unregisterClient(ch *remoting.Channel, req *remoting.RemotingCommand) *remoting.RemotingCommand {
	b := p.b
	var h protocol.UnregisterClientRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("unregister client", err)
	}
	info := ClientChannelInfo{Channel: ch, ClientID: h.ClientID, Language: req.Language, Version: req.Version}
	if h.ProducerGroup != "" {
		b.producerManager.UnregisterProducer(h.ProducerGroup, info)
	}
	if h.ConsumerGroup != "" {
		notify := true
		if sgc := b.subscriptionGroupManager.FindSubscriptionGroupConfig(h.ConsumerGroup); sgc != nil {
			notify = sgc.NotifyConsumerIdsChangedEnable
		}
		b.consumerManager.UnregisterConsumer(h.ConsumerGroup, info, notify)
	}
	return remoting.NewResponse(protocol.Success, "")
}

// rebuildTagCodes recomputes a TAG subscription's codeSet with Java's String.hashCode over the
// tags (from tagsSet, or parsed from subString when tagsSet is empty).
//
// Deviation: Java trusts the codeSet the client sends. client-go hashes UTF-8 bytes, which
// differs from Java for non-ASCII tags, so a broker trusting it would filter those messages out
// (remoting-protocol.md §6.5); the codes are rebuilt so filtering matches the stored tagsCode.
func rebuildTagCodes(s protocol.SubscriptionData) protocol.SubscriptionData {
	if !isTagType(s.ExpressionType) || s.SubString == protocol.SubAll || s.SubString == "" {
		return s
	}
	if len(s.TagsSet) == 0 {
		if built, err := protocol.BuildSubscriptionData(s.Topic, s.SubString); err == nil {
			s.TagsSet = built.TagsSet
		}
	}
	s.CodeSet = nil // never share the decoded slice
	s.RebuildCodeSet()
	return s
}
