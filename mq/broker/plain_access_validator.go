package broker

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/acl"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// aclWatchInterval is how often the ACL file is checked for changes (Java's FileWatchService: 500 ms).
const aclWatchInterval = 500 * time.Millisecond

// PlainAccessValidator is the broker's RPC hook when aclEnable=true: it reads from a request
// what the request code needs (PUB or SUB on which topics and groups, admin or not) and asks
// the PlainPermissionManager. A refusal is answered SYSTEM_ERROR with a remark naming what is
// missing, as a Java 4.9 broker answers an AclException.
// Java: org.apache.rocketmq.acl.plain.PlainAccessValidator (parse, validate), installed by
// BrokerController#initialAcl as an RPCHook.
type PlainAccessValidator struct {
	manager *acl.PlainPermissionManager
}

// initialAcl loads the ACL file and installs the validator on both remoting servers; nothing
// when aclEnable is false. A file that does not parse fails the start.
// Java: BrokerController#initialAcl.
func (b *BrokerController) initialAcl() error {
	if !b.cfg.AclEnable {
		return nil
	}
	path := b.cfg.PlainAclFile
	if path == "" {
		path = filepath.Join(b.cfg.RocketmqHome, "conf", "plain_acl.yml")
	}
	m, err := acl.NewPlainPermissionManager(path, b.log)
	if err != nil {
		return fmt.Errorf("broker: aclEnable=true: %w", err)
	}
	m.Watch(aclWatchInterval)
	b.aclManager = m
	v := &PlainAccessValidator{manager: m}
	b.remotingServer.RegisterRPCHook(v)
	b.fastRemotingServer.RegisterRPCHook(v)
	b.log.Info("acl enabled", "file", path)
	return nil
}

// AclManager is the broker's ACL table; nil unless aclEnable=true.
func (b *BrokerController) AclManager() *acl.PlainPermissionManager { return b.aclManager }

// DoBeforeRequest implements remoting.RPCHook: nil lets req through; the error refuses it.
func (v *PlainAccessValidator) DoBeforeRequest(remoteAddr string, req *remoting.RemotingCommand) error {
	r, err := ParseAccessResource(remoteAddr, req)
	if err != nil {
		return err
	}
	return v.manager.Validate(r)
}

// adminCodes need an admin account. Java: Permission.ADMIN_CODE (the first five).
//
// Deviation: the four ACL admin codes are admin-only here too; Java 4.9 lets any signed
// account rewrite plain_acl.yml.
var adminCodes = map[int32]bool{
	protocol.UpdateAndCreateTopic:             true,
	protocol.UpdateBrokerConfig:               true,
	protocol.DeleteTopicInBroker:              true,
	protocol.UpdateAndCreateSubscriptionGroup: true,
	protocol.DeleteSubscriptionGroup:          true,
	protocol.UpdateAndCreateACLConfig:         true,
	protocol.DeleteACLConfig:                  true,
	protocol.GetBrokerClusterACLInfo:          true,
	protocol.UpdateGlobalWhiteAddrsConfig:     true,
}

// ParseAccessResource reads what req needs, by request code (the extFields keys are the
// headers' wire names):
//
//	SEND_MESSAGE (topic), SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE / SEND_REPLY_MESSAGE(_V2) (b)  PUB on the topic
//	CONSUMER_SEND_MSG_BACK    PUB on originTopic, SUB on group
//	PULL_MESSAGE              SUB on topic and on consumerGroup
//	QUERY_MESSAGE             SUB on topic
//	HEART_BEAT                SUB on each consumer group of the body and each topic it subscribes
//	UNREGISTER_CLIENT, GET_CONSUMER_LIST_BY_GROUP  SUB on consumerGroup
//	UPDATE_CONSUMER_OFFSET, QUERY_CONSUMER_OFFSET  SUB on consumerGroup and topic
//	adminCodes                admin
//	any other code            a valid signature only
//
// A topic named %RETRY%group counts as the group (Java keeps groups as their retry topics).
// A header field that is absent adds nothing (the processor refuses the header); a heartbeat
// body that does not decode is an error.
// Java: PlainAccessValidator#parse.
//
// Deviation: Java 4.9 checks no topic for SEND_BATCH_MESSAGE and SEND_REPLY_MESSAGE(_V2), so
// a batch would bypass topic permissions; here they need PUB like the other sends.
func ParseAccessResource(remoteAddr string, req *remoting.RemotingCommand) (acl.AccessResource, error) {
	ext := req.ExtFields
	r := acl.AccessResource{
		AccessKey:     ext[acl.KeyAccessKey],
		Signature:     ext[acl.KeySignature],
		SecurityToken: ext[acl.KeySecurityToken],
		RemoteAddr:    remoteAddr,
		RequestCode:   req.Code,
		NeedAdmin:     adminCodes[req.Code],
		Topics:        map[string]acl.Perm{},
		Groups:        map[string]acl.Perm{},
	}
	if r.AccessKey != "" {
		r.Content = acl.SignContent(ext, req.Body)
	}
	topic := func(name string, p acl.Perm) {
		if name == "" {
			return
		}
		if protocol.IsRetryTopic(name) {
			r.Groups[strings.TrimPrefix(name, protocol.RetryGroupTopicPrefix)] |= p
			return
		}
		r.Topics[name] |= p
	}
	group := func(name string, p acl.Perm) {
		if name != "" {
			r.Groups[name] |= p
		}
	}
	switch req.Code {
	case protocol.SendMessage:
		topic(ext["topic"], acl.PermPub)
	case protocol.SendMessageV2, protocol.SendBatchMessage, protocol.SendReplyMessage, protocol.SendReplyMessageV2:
		if t, ok := ext["b"]; ok {
			topic(t, acl.PermPub)
		} else {
			topic(ext["topic"], acl.PermPub)
		}
	case protocol.ConsumerSendMsgBack:
		topic(ext["originTopic"], acl.PermPub)
		group(ext["group"], acl.PermSub)
	case protocol.PullMessage:
		topic(ext["topic"], acl.PermSub)
		group(ext["consumerGroup"], acl.PermSub)
	case protocol.QueryMessage:
		topic(ext["topic"], acl.PermSub)
	case protocol.HeartBeat:
		hb, err := protocol.DecodeHeartbeatData(req.Body)
		if err != nil {
			return r, fmt.Errorf("acl: heartbeat body: %w", err)
		}
		for _, c := range hb.ConsumerDataSet {
			group(c.GroupName, acl.PermSub)
			for _, s := range c.SubscriptionDataSet {
				topic(s.Topic, acl.PermSub)
			}
		}
	case protocol.UnregisterClient, protocol.GetConsumerListByGroup:
		group(ext["consumerGroup"], acl.PermSub)
	case protocol.UpdateConsumerOffset, protocol.QueryConsumerOffset:
		group(ext["consumerGroup"], acl.PermSub)
		topic(ext["topic"], acl.PermSub)
	}
	return r, nil
}
