import Testing

@testable import HearthServer

/// Whether a loop's drain serves a lone burst (long slices: after a quiet spell) or sustained
/// fan-out (short slices: bursts keep coming). Times are given, no clock is read.
struct DeliveryPacingTests {

    /// Updates to hand out: distinct objects, kept alive so their identities stay distinct.
    final class Update {}

    static func pacing() -> DeliveryPacing {
        DeliveryPacing(burstWindow: 250_000, sustainedGap: 1_000_000)
    }

    @Test func theFirstPushIsALoneBurst() {
        var pacing = Self.pacing()
        let update = Update()
        #expect(pacing.arrived(ObjectIdentifier(update)) { 7 })
        #expect(pacing.loneBurst == 1)
    }

    @Test func burstsFurtherApartThanTheGapAreLone() {
        var pacing = Self.pacing()
        let updates = (0..<5).map { _ in Update() }
        for (i, update) in updates.enumerated() {
            #expect(pacing.arrived(ObjectIdentifier(update)) { UInt64(i) * 2_000_000 })
            #expect(pacing.loneBurst == UInt64(i + 1), "burst \(i)")
        }
    }

    @Test func burstsCloserThanTheGapAreSustained() {
        var pacing = Self.pacing()
        let first = Update()
        let second = Update()
        let third = Update()
        pacing.arrived(ObjectIdentifier(first)) { 10_000_000 }
        pacing.arrived(ObjectIdentifier(second)) { 10_400_000 }
        #expect(pacing.loneBurst == nil)
        // Then a quiet spell: the next burst is lone again.
        pacing.arrived(ObjectIdentifier(third)) { 12_000_000 }
        #expect(pacing.loneBurst == 3)
    }

    /// More pushes of an update already seen, however late, belong to its burst: a drain that
    /// caught up with a fan-out still under way does not cut the rest of it into short slices.
    @Test func morePushesOfTheSameUpdateKeepTheBurstsPace() {
        var pacing = Self.pacing()
        let update = Update()
        var reads = 0
        for (i, time): (Int, UInt64) in [5_000_000, 5_600_000, 5_900_000].enumerated() {
            let began = pacing.arrived(ObjectIdentifier(update)) {
                reads += 1
                return time
            }
            #expect(began == (i == 0))
            #expect(pacing.loneBurst == 1)
        }
        #expect(reads == 1, "the clock is read once per update")
    }

    /// A commit's default listens and then its query listens (other updates, a read later) are
    /// one burst; so a pass that lands in two drains stays lone.
    @Test func updatesWithinTheBurstWindowAreOneBurst() {
        var pacing = Self.pacing()
        let updates = (0..<3).map { _ in Update() }
        #expect(pacing.arrived(ObjectIdentifier(updates[0])) { 20_000_000 })
        #expect(!pacing.arrived(ObjectIdentifier(updates[1])) { 20_100_000 })
        #expect(!pacing.arrived(ObjectIdentifier(updates[2])) { 20_240_000 })
        #expect(pacing.loneBurst == 1)
    }

    /// Short slices do not feed themselves: with bursts 2 ms apart, every drain serves a lone
    /// burst however late the previous one ended (drain ends are not an input).
    @Test func aSteadyRateSlowerThanTheGapIsAlwaysLone() {
        var pacing = Self.pacing()
        let updates = (0..<50).map { _ in Update() }
        var sustained = 0
        for (i, update) in updates.enumerated() {
            pacing.arrived(ObjectIdentifier(update)) { 1_000_000 + UInt64(i) * 2_000_000 }
            if pacing.loneBurst == nil { sustained += 1 }
        }
        #expect(sustained == 0)
    }
}
