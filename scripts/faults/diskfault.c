// diskfault.c: an LD_PRELOAD shim that makes the disk fail under one directory, switchable while
// the process runs. Used by Hearth's disk-fault tests (Tests/HearthCLITests/DiskFault*.swift,
// docs/disk-faults.md); built by them with the toolchain's clang:
//
//   clang -shared -fPIC -O1 -o diskfault.so diskfault.c -ldl
//
// Environment of the process it is loaded into:
//   HEARTH_FAULT_DIR     absolute path: only files under it fail
//   HEARTH_FAULT_SWITCH  path of a control file, read on every call (never cached): missing or
//                        empty means healthy, else its first word names the fault:
//     full      write/pwrite/writev, ftruncate/fallocate, creating a file and rename fail
//               with ENOSPC (as on a full disk: what exists can still be read and synced)
//     fsync     fsync and fdatasync fail with EIO (a disk that loses written pages)
//     readonly  opening for writing, creating, writing, syncing, renaming, deleting fail with
//               EROFS (as after a remount read-only)
//     stall     fsync and fdatasync wait, then succeed, for as long as the switch says stall (a
//               disk that stops answering for a while); each call that waits first creates
//               <HEARTH_FAULT_SWITCH>.stalled, so a test knows one is held
//     nofiles   opening a file under the directory fails with EMFILE (a process out of file
//               descriptors: those it holds keep working); each refused open first creates
//               <HEARTH_FAULT_SWITCH>.refused
//
// Only the calls named here are intercepted, through their public symbols (what LevelDB and
// Foundation call); nothing else of the process changes. The control file and file names are
// read with raw system calls so the shim never calls itself.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum fault { HEALTHY, FULL, FSYNC, READONLY, STALL, NOFILES };

static enum fault current_fault(void) {
    const char *control = getenv("HEARTH_FAULT_SWITCH");
    if (!control) return HEALTHY;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, control, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return HEALTHY;
    char word[16] = {0};
    long count = syscall(SYS_read, fd, word, sizeof word - 1);
    syscall(SYS_close, fd);
    if (count <= 0) return HEALTHY;
    if (strncmp(word, "full", 4) == 0) return FULL;
    if (strncmp(word, "fsync", 5) == 0) return FSYNC;
    if (strncmp(word, "readonly", 8) == 0) return READONLY;
    if (strncmp(word, "stall", 5) == 0) return STALL;
    if (strncmp(word, "nofiles", 7) == 0) return NOFILES;
    return HEALTHY;
}

static int under_directory(const char *path) {
    const char *directory = getenv("HEARTH_FAULT_DIR");
    if (!directory || !path) return 0;
    size_t length = strlen(directory);
    while (length > 1 && directory[length - 1] == '/') length--;
    char absolute[PATH_MAX];
    if (path[0] != '/') {
        if (!getcwd(absolute, sizeof absolute)) return 0;
        size_t used = strlen(absolute);
        snprintf(absolute + used, sizeof absolute - used, "/%s", path);
        path = absolute;
    }
    return strncmp(path, directory, length) == 0 && (path[length] == '/' || path[length] == 0);
}

static int fd_under_directory(int fd) {
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, path, sizeof path - 1);
    if (length <= 0) return 0;
    path[length] = 0;
    return under_directory(path);
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

// Creates <switch><suffix> (with raw system calls), so a test knows a fault was met.
static void mark(const char *suffix) {
    char marker[PATH_MAX];
    snprintf(marker, sizeof marker, "%s%s", getenv("HEARTH_FAULT_SWITCH"), suffix);
    int made = (int)syscall(SYS_openat, AT_FDCWD, marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (made >= 0) syscall(SYS_close, made);
}

// The error a call on `fd` (or `path`) gets under the current fault, or 0 to let it through.
static int write_error(int fd) {
    enum fault fault = current_fault();
    if (fault != FULL && fault != READONLY) return 0;
    if (!fd_under_directory(fd)) return 0;
    return fault == FULL ? ENOSPC : EROFS;
}

static int sync_error(int fd) {
    enum fault fault = current_fault();
    if (fault != FSYNC && fault != READONLY) return 0;
    if (!fd_under_directory(fd)) return 0;
    return fault == FSYNC ? EIO : EROFS;
}

static int open_error(const char *path, int flags) {
    enum fault fault = current_fault();
    if (fault == NOFILES && under_directory(path)) {
        mark(".refused");
        return EMFILE;
    }
    int writes = (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0;
    if (!writes) return 0;
    if (fault != FULL && fault != READONLY) return 0;
    if (!under_directory(path)) return 0;
    if (fault == READONLY) return EROFS;
    // A full disk still opens existing files for writing; creating one needs an inode.
    if ((flags & O_CREAT) && access(path, F_OK) != 0) return ENOSPC;
    return 0;
}

static int path_error(const char *path, int full_too) {
    enum fault fault = current_fault();
    if (fault == READONLY && under_directory(path)) return EROFS;
    if (full_too && fault == FULL && under_directory(path)) return ENOSPC;
    return 0;
}

#define FAIL_WITH(error) \
    do { \
        errno = (error); \
        return -1; \
    } while (0)

ssize_t write(int fd, const void *buffer, size_t count) {
    int error = write_error(fd);
    if (error) FAIL_WITH(error);
    return REAL(write)(fd, buffer, count);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    int error = write_error(fd);
    if (error) FAIL_WITH(error);
    return REAL(pwrite)(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
    int error = write_error(fd);
    if (error) FAIL_WITH(error);
    return REAL(pwrite64)(fd, buffer, count, offset);
}

ssize_t writev(int fd, const struct iovec *vector, int count) {
    int error = write_error(fd);
    if (error) FAIL_WITH(error);
    return REAL(writev)(fd, vector, count);
}

int ftruncate(int fd, off_t length) {
    int error = write_error(fd);
    if (error) FAIL_WITH(error);
    return REAL(ftruncate)(fd, length);
}

int fallocate(int fd, int mode, off_t offset, off_t length) {
    int error = write_error(fd);
    if (error) FAIL_WITH(error);
    return REAL(fallocate)(fd, mode, offset, length);
}

// Under `stall`, holds a sync of a file under the directory until the switch says otherwise,
// after marking that one is held (<switch>.stalled, created with raw system calls).
static void wait_while_stalled(int fd) {
    if (current_fault() != STALL || !fd_under_directory(fd)) return;
    mark(".stalled");
    struct timespec pause = {0, 5 * 1000 * 1000};
    while (current_fault() == STALL) nanosleep(&pause, NULL);
}

int fsync(int fd) {
    wait_while_stalled(fd);
    int error = sync_error(fd);
    if (error) FAIL_WITH(error);
    return REAL(fsync)(fd);
}

int fdatasync(int fd) {
    wait_while_stalled(fd);
    int error = sync_error(fd);
    if (error) FAIL_WITH(error);
    return REAL(fdatasync)(fd);
}

static mode_t mode_argument(int flags, va_list arguments) {
    return (flags & (O_CREAT | __O_TMPFILE)) ? (mode_t)va_arg(arguments, int) : 0;
}

int open(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    int error = open_error(path, flags);
    if (error) FAIL_WITH(error);
    return REAL(open)(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    int error = open_error(path, flags);
    if (error) FAIL_WITH(error);
    return REAL(open64)(path, flags, mode);
}

int openat(int directory, const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    // Relative to a directory descriptor: judged only when absolute or relative to the cwd.
    if (path[0] == '/' || directory == AT_FDCWD) {
        int error = open_error(path, flags);
        if (error) FAIL_WITH(error);
    }
    return REAL(openat)(directory, path, flags, mode);
}

int openat64(int directory, const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    if (path[0] == '/' || directory == AT_FDCWD) {
        int error = open_error(path, flags);
        if (error) FAIL_WITH(error);
    }
    return REAL(openat64)(directory, path, flags, mode);
}

int creat(const char *path, mode_t mode) {
    int error = open_error(path, O_CREAT | O_WRONLY | O_TRUNC);
    if (error) FAIL_WITH(error);
    return REAL(creat)(path, mode);
}

int rename(const char *from, const char *to) {
    int error = path_error(to, 1);
    if (!error) error = path_error(from, 1);
    if (error) FAIL_WITH(error);
    return REAL(rename)(from, to);
}

int renameat(int from_directory, const char *from, int to_directory, const char *to) {
    int error = path_error(to, 1);
    if (!error) error = path_error(from, 1);
    if (error) FAIL_WITH(error);
    return REAL(renameat)(from_directory, from, to_directory, to);
}

int unlink(const char *path) {
    int error = path_error(path, 0);
    if (error) FAIL_WITH(error);
    return REAL(unlink)(path);
}

int mkdir(const char *path, mode_t mode) {
    // An existing directory is EEXIST on any file system, read-only or full.
    int error = access(path, F_OK) == 0 ? 0 : path_error(path, 1);
    if (error) FAIL_WITH(error);
    return REAL(mkdir)(path, mode);
}

int unlinkat(int directory, const char *path, int flags) {
    int error = (path[0] == '/' || directory == AT_FDCWD) ? path_error(path, 0) : 0;
    if (error) FAIL_WITH(error);
    return REAL(unlinkat)(directory, path, flags);
}
