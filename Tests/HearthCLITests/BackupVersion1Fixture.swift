import Foundation

/// A backup in format version 1 (no storage objects), written by `hearth backup` of commit
/// dba2f05 from a server holding `/notes/ada = {"name": "Ada", "born": 1815}`: restores of
/// today must still take it.
enum BackupVersion1Fixture {
    static let notes = #"{"ada":{"born":1815,"name":"Ada"}}"#

    static var bytes: Data {
        Data(base64Encoded: base64.filter { !$0.isWhitespace })!
    }

    private static let base64 = """
        SEVBUlRILUJBQ0tVUAoBT3siZm9ybWF0IjoiaGVhcnRoLWJhY2t1cCIsImNyZWF0ZWRBdCI6MTc5NTkyNzY0NjY0MSwibmFtZXNw
        YWNlcyI6eyJkZWZhdWx0IjozfX1zF0QAAAABAm5vdGVzAAJhZGEAAmJvcm4ACWQAAAAAAFycQHMXRAAAAAECbm90ZXMAAmFkYQAC
        bmFtZQAEc0FkYXMRSGRlZmF1bHQAAAAAAAAAAAF1eyJ0ZXh0Ijoie1wicnVsZXNcIjoge1wiLnJlYWRcIjogZmFsc2UsIFwiLndy
        aXRlXCI6IGZhbHNlfX0iLCJwdWJsaXNoZWRBdCI6MTc5NTkyNzY0NTY5Mywib3JpZ2luIjoibG9hZCIsInZlcnNpb24iOjF9cxFN
        Lm5leHROYW1lc3BhY2VJRAQAAAACcwhOZGVmYXVsdAQAAAABcxVRAAAAAWNoYXQubWVtYmVyc2hpcHMBMXMTUQAAAAFjaGF0Lm5h
        bWVXb3JkcwEycxZRAAAAAWNoYXQucGhvbmVOdW1iZXJzATFzBVMAAAABCAAAAAAAAAADZgpqd3Qtc2VjcmV0LDRsblZKblZXWDMy
        anR1SGRPbHNWam0zSDlERHM0bFd3RzgyRVNJZWktVEkKZQAAAAAAAAAKtZ1shT/iqGJtTs53kQNt36BqP00wDumZzMvAqnwhlT8=
        """
}
