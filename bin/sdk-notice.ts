// Imported first by every entry point: the AWS clients are built while modules load, so the
// setting must be in place before any other import runs. Node 20 here, Node 22 on Lambda: the
// SDK's Node-20 notice is known (docs/decisions.md, decision 7).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
