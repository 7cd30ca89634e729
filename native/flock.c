// flock(2) for the file store's lock (src/store/file/lock.ts), so that taking the lock costs a
// system call rather than a child process: Node has no flock, and starting flock(1) costs several
// milliseconds of a command's start-up. Built at install by scripts/build-native.mjs; when it is
// not built, svc runs flock(1) on the same descriptor instead, which takes the same kernel lock.
#include <errno.h>
#include <string.h>
#include <sys/file.h>
#include <node_api.h>

// The errno names an operator may meet here, so the error says ENOLCK rather than a number.
static const char *errno_name(int e) {
  switch (e) {
    case EBADF: return "EBADF";
    case EINVAL: return "EINVAL";
    case ENOLCK: return "ENOLCK";
    case EIO: return "EIO";
#ifdef EOPNOTSUPP
    case EOPNOTSUPP: return "EOPNOTSUPP";
#endif
    default: return "EUNKNOWN";
  }
}

// tryLock(fd): true once this open file description holds the exclusive lock (kept until every
// descriptor of it is closed, by exit or crash alike), false when another holds it; anything else
// throws an Error whose code is the errno's name.
static napi_value try_lock(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  napi_value result;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok) {
    napi_throw_type_error(env, NULL, "tryLock(fd): fd must be a number");
    return NULL;
  }
  int r;
  do r = flock(fd, LOCK_EX | LOCK_NB);
  while (r == -1 && errno == EINTR);
  if (r == 0 || errno == EWOULDBLOCK) {
    napi_get_boolean(env, r == 0, &result);
    return result;
  }
  int e = errno;
  napi_throw_error(env, errno_name(e), strerror(e));
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "tryLock", NAPI_AUTO_LENGTH, try_lock, NULL, &fn);
  napi_set_named_property(env, exports, "tryLock", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
