package broker

import (
	"encoding/json"
	"strconv"

	"github.com/annotated-rocketmq/rocketmq-go/mq/acl"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// The ACL admin codes rewrite plain_acl.yml (the watcher then has nothing new to load) or read
// it. They need an admin account (adminCodes). Without aclEnable=true they answer SYSTEM_ERROR.
// Their headers are read by their wire names (Java: PlainAccessConfigRequestHeader,
// DeleteAccessConfigRequestHeader, UpdateGlobalWhiteAddrsConfigRequestHeader): lists are
// comma-separated ("topicA=PUB,topicB=SUB"; "10.1.*,192.168.0.1").

// updateAndCreateAccessConfig adds or replaces the account of header accessKey.
// Java: AdminBrokerProcessor#updateAndCreateAccessConfig.
func (p *AdminBrokerProcessor) updateAndCreateAccessConfig(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	m, resp := p.aclManager()
	if m == nil {
		return resp
	}
	ext := req.ExtFields
	c := acl.PlainAccessConfig{
		AccessKey:          ext["accessKey"],
		SecretKey:          ext["secretKey"],
		WhiteRemoteAddress: ext["whiteRemoteAddress"],
		DefaultTopicPerm:   ext["defaultTopicPerm"],
		DefaultGroupPerm:   ext["defaultGroupPerm"],
		TopicPerms:         splitList(ext["topicPerms"]),
		GroupPerms:         splitList(ext["groupPerms"]),
	}
	c.Admin, _ = strconv.ParseBool(ext["admin"])
	return aclResult(m.UpdateAccount(c))
}

// deleteAccessConfig removes the account of header accessKey.
// Java: AdminBrokerProcessor#deleteAccessConfig.
func (p *AdminBrokerProcessor) deleteAccessConfig(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	m, resp := p.aclManager()
	if m == nil {
		return resp
	}
	return aclResult(m.DeleteAccount(req.ExtFields["accessKey"]))
}

// updateGlobalWhiteAddrsConfig replaces globalWhiteRemoteAddresses with header globalWhiteAddrs.
// Java: AdminBrokerProcessor#updateGlobalWhiteAddrsConfig.
func (p *AdminBrokerProcessor) updateGlobalWhiteAddrsConfig(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	m, resp := p.aclManager()
	if m == nil {
		return resp
	}
	return aclResult(m.UpdateGlobalWhiteAddrs(splitList(req.ExtFields["globalWhiteAddrs"])))
}

// aclConfigBody is GET_BROKER_CLUSTER_ACL_INFO's body. Java: AclConfig (globalWhiteAddrs,
// plainAccessConfigs), as JSON.
type aclConfigBody struct {
	GlobalWhiteAddrs   []string                `json:"globalWhiteAddrs"`
	PlainAccessConfigs []acl.PlainAccessConfig `json:"plainAccessConfigs"`
}

// getBrokerClusterAclInfo answers the header brokerName, brokerAddr, clusterName and version
// ("0": this broker keeps no dataVersion of the file) and the white list and accounts as body,
// secret keys included as in Java (the code is admin-only here).
// Java: AdminBrokerProcessor#getBrokerClusterAclInfo.
func (p *AdminBrokerProcessor) getBrokerClusterAclInfo(_ *remoting.RemotingCommand) *remoting.RemotingCommand {
	m, resp := p.aclManager()
	if m == nil {
		return resp
	}
	d := m.Data()
	body, err := json.Marshal(aclConfigBody{GlobalWhiteAddrs: d.GlobalWhiteRemoteAddresses, PlainAccessConfigs: d.Accounts})
	if err != nil {
		return remoting.NewResponse(protocol.SystemError, err.Error())
	}
	r := remoting.NewResponse(protocol.Success, "")
	r.AddExtField("brokerName", p.b.cfg.BrokerName)
	r.AddExtField("brokerAddr", p.b.BrokerAddr())
	r.AddExtField("clusterName", p.b.cfg.BrokerClusterName)
	r.AddExtField("version", "0")
	r.Body = body
	return r
}

// aclManager is the broker's ACL table, or nil and the SYSTEM_ERROR answer when aclEnable is off.
func (p *AdminBrokerProcessor) aclManager() (*acl.PlainPermissionManager, *remoting.RemotingCommand) {
	if m := p.b.aclManager; m != nil {
		return m, nil
	}
	return nil, remoting.NewResponse(protocol.SystemError, "acl is not enabled on this broker (aclEnable=false)")
}

// aclResult answers SUCCESS, or SYSTEM_ERROR with the error (which names accounts by
// accessKey only).
func aclResult(err error) *remoting.RemotingCommand {
	if err != nil {
		return remoting.NewResponse(protocol.SystemError, err.Error())
	}
	return remoting.NewResponse(protocol.Success, "")
}

// splitList splits a comma-separated header value, dropping empty entries.
func splitList(s string) []string { return protocol.SplitList(s, ",") }
