// Package acl holds RocketMQ 4.x's plain ACL: accounts with an AccessKey and a SecretKey read
// from conf/plain_acl.yml, the HmacSHA1 request signature, permissions on topics and groups,
// and white lists of client addresses. It knows no request codes and no remoting types: the
// broker turns a request into an AccessResource (which topics and groups the code needs) and
// asks Validate from the RPC hook it installs on its remoting servers; the client signs with
// Sign. Java: the acl module (PlainAccessValidator, PlainPermissionManager, AclUtils,
// AclClientRPCHook, Permission, RemoteAddressStrategyFactory).
//
// # Files
//
//	permission.go                 Perm (DENY 1, ANY 2, PUB 4, SUB 8), ParsePerm, Perm.Allows
//	sign.go                       SignContent, Signature (base64 HmacSHA1), Sign, Credentials
//	remote_address.go             AddressPattern: *, a.b.c.1, a.b.c.{1,2}, a.b.*, a.b.c.1-5, lists
//	plain_access_config.go        PlainAccessData / PlainAccessConfig: plain_acl.yml (YAML)
//	plain_permission_manager.go   PlainPermissionManager: Validate, Reload, Watch, the admin
//	                              updates (UpdateAccount, DeleteAccount, UpdateGlobalWhiteAddrs)
//
// # The signature
//
// A signed request carries extFields AccessKey, Signature and, optionally, SecurityToken. The
// signed bytes are the values of every extField except Signature (AccessKey and SecurityToken
// included) in the byte order of their keys, concatenated without separators, followed by the
// body; Signature is base64 (standard, padded) of HmacSHA1 keyed with the SecretKey.
//
// Goroutines: Watch runs one ServiceThread that rereads the file. mu guards the table; a reload
// swaps it whole, so a Validate sees one version.
package acl
