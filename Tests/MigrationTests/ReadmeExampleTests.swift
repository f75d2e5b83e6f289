import Foundation
import ModelVersioning
import Testing

/// The README's Swift example, compiled and run.
enum Readme {
    struct Point: Codable { var x, y: Double }

    final class Circle: VersionedModel {
        var center: Point
        var radius: Double
        @WeakReference var owner: Drawing?

        init(center: Point, radius: Double) {
            self.center = center
            self.radius = radius
        }

        // v1 archived {x, y, r}; v2 nests the centre and renames the radius.
        static let modelVersion = 2
        static let migrationSteps = [
            MigrationStep(from: 1, to: 2, rules: [.nest(["x", "y"], into: "center"), .rename("r", to: "radius")])
        ]
    }

    final class Drawing: VersionedModel {
        var circles: [Circle]

        init(circles: [Circle]) {
            self.circles = circles
            for circle in circles { circle.owner = self }
        }
    }
}

@Suite("README example")
struct ReadmeExampleTests {
    @Test("the README's example decodes a version-1 archive and reports the step")
    func example() throws {
        let drawing = Readme.Drawing(circles: [Readme.Circle(center: Readme.Point(x: 1, y: 2), radius: 3)])
        let oldData = Data(
            #"{"$archive": 1, "root": {"$type": "Drawing", "$version": 1, "circles": [{"$type": "Circle", "$version": 1, "x": 1, "y": 2, "r": 3}]}}"#
                .utf8)

        let registry = try ModelRegistry([Readme.Drawing.self, Readme.Circle.self])
        let data = try ArchiveEncoder().encode(drawing)
        let (reopened, report) = try ArchiveDecoder(registry: registry).decodeWithReport(
            Readme.Drawing.self, from: oldData)

        #expect(reopened.circles[0].center.y == 2)
        #expect(reopened.circles[0].radius == 3)
        #expect(report.entries.map(\.path) == ["circles[0]"])
        let again = try ArchiveDecoder(registry: registry).decode(Readme.Drawing.self, from: data)
        // The circle's owner is archived conditionally, and restored once the drawing exists.
        #expect(again.circles[0].owner === again)
    }
}
